// The YAML subset of rule files: nesting by indentation, the scalar forms, and errors with lines.
#include "sim/alerts/yaml_subset.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

const YamlNode& at(const YamlNode& map, const std::string& key) {
  for (const auto& [k, v] : map.entries) {
    if (k == key) return v;
  }
  throw std::out_of_range("no key " + key);
}

TEST(YamlSubset, ScalarForms) {
  struct Case {
    std::string text, want;
  };
  const Case cases[] = {
      {"v: plain text\n", "plain text"},
      {"v: up{job=\"vllm\"} == 0\n", "up{job=\"vllm\"} == 0"},
      {"v: a # comment\n", "a"},
      {"v: a#b\n", "a#b"},
      {"v: 'it''s # not a comment'\n", "it's # not a comment"},
      {"v: \"tab\\tquote\\\" {{ $value }}\"\n", "tab\tquote\" {{ $value }}"},
      {"v: |\n  line one\n    indented\n  line three\n", "line one\n  indented\nline three\n"},
      {"v: |-\n  a\n  b\n\n", "a\nb"},
      {"v: |+\n  a\n\n", "a\n\n"},
      {"v: >\n  a\n  b\n\n  c\n", "a b\nc\n"},
      {"v: first\n  continued\n  and more\n", "first continued and more"},
      {"v:\n", ""},
  };
  for (const Case& c : cases) {
    const YamlNode doc = parse_yaml_subset(c.text);
    EXPECT_EQ(at(doc, "v").scalar, c.want) << c.text;
  }
}

TEST(YamlSubset, MapsSequencesAndFlowCollections) {
  const YamlNode doc = parse_yaml_subset(
      "# header\n"
      "groups:\n"
      "- name: g1\n"
      "  rules:\n"
      "    - alert: A\n"
      "      labels: {severity: page, team: \"infra, core\"}\n"
      "\n"
      "    - record: r\n"
      "      list: [a, 'b c']\n"
      "      empty: {}\n"
      "  other: x\n");
  ASSERT_TRUE(doc.is_map());
  const YamlNode& groups = at(doc, "groups");
  ASSERT_TRUE(groups.is_sequence());
  ASSERT_EQ(groups.items.size(), 1u);
  const YamlNode& g = groups.items[0];
  EXPECT_EQ(at(g, "name").scalar, "g1");
  EXPECT_EQ(at(g, "other").scalar, "x");
  const YamlNode& rules = at(g, "rules");
  ASSERT_EQ(rules.items.size(), 2u);
  EXPECT_EQ(rules.items[0].line, 5);
  EXPECT_EQ(rules.items[1].line, 8);
  const YamlNode& labels = at(rules.items[0], "labels");
  ASSERT_TRUE(labels.is_map());
  EXPECT_EQ(at(labels, "severity").scalar, "page");
  EXPECT_EQ(at(labels, "team").scalar, "infra, core");
  const YamlNode& list = at(rules.items[1], "list");
  ASSERT_EQ(list.items.size(), 2u);
  EXPECT_EQ(list.items[1].scalar, "b c");
  EXPECT_TRUE(at(rules.items[1], "empty").is_map());
  EXPECT_TRUE(at(rules.items[1], "empty").entries.empty());
}

TEST(YamlSubset, ErrorsNameTheLine) {
  struct Case {
    std::string text;
    int line;
    std::string what;
  };
  const Case cases[] = {
      {"a: 1\na: 2\n", 2, "duplicate key 'a'"},
      {"a:\n\tb: 1\n", 2, "tab in indentation"},
      {"a: 1\n   b: 2\n", 2, "unexpected indentation"},
      {"a: 'open\n", 1, "missing closing '"},
      {"a: {b: 1\n", 1, "missing closing }"},
      {"a: [x, [y]]\n", 1, "nested flow collections"},
      {"a:\n  - x\n  y\n", 3, "unexpected indentation"},
      {"a: 1\nnot a pair\n", 2, "expected 'key: value'"},
      {"a: |2\n  x\n", 1, "unsupported block scalar header"},
  };
  for (const Case& c : cases) {
    try {
      parse_yaml_subset(c.text);
      ADD_FAILURE() << "no error for: " << c.text;
    } catch (const YamlError& e) {
      EXPECT_EQ(e.line(), c.line) << c.text << " -> " << e.what();
      EXPECT_NE(std::string(e.what()).find(c.what), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace llm
