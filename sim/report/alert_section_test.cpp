// The alert timeline's row labels (issue 33: names were cut off on the left): each label is
// written whole, left-aligned inside the chart, wrapped into lines that fit its width; fault
// windows get their own rows.
#include "sim/report/alert_section.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/report/testing/xml_check.h"

namespace llm {
namespace {

struct TextElement {
  std::string start_tag;
  std::string content;  // unescaped
};

std::string unescape_xml(std::string s) {
  const std::pair<const char*, const char*> entities[] = {
      {"&quot;", "\""}, {"&lt;", "<"}, {"&gt;", ">"}, {"&apos;", "'"}, {"&amp;", "&"}};
  for (const auto& [entity, plain] : entities) {
    for (size_t at = s.find(entity); at != std::string::npos; at = s.find(entity, at + 1)) {
      s.replace(at, std::string(entity).size(), plain);
    }
  }
  return s;
}

// Every <text> element of `svg`, in document order.
std::vector<TextElement> svg_texts(const std::string& svg) {
  std::vector<TextElement> out;
  for (size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    const size_t open_end = svg.find('>', at);
    const size_t close = svg.find("</text>", open_end);
    if (open_end == std::string::npos || close == std::string::npos) break;
    out.push_back({svg.substr(at, open_end + 1 - at),
                   unescape_xml(svg.substr(open_end + 1, close - open_end - 1))});
  }
  return out;
}

// The <text> lines that together spell `label` (consecutive, starting with its first
// characters); empty when no run of lines does.
std::vector<TextElement> lines_spelling(const std::vector<TextElement>& texts, const std::string& label) {
  for (size_t i = 0; i < texts.size(); ++i) {
    std::string spelled;
    std::vector<TextElement> lines;
    for (size_t j = i; j < texts.size() && spelled.size() < label.size(); ++j) {
      if (label.compare(spelled.size(), texts[j].content.size(), texts[j].content) != 0) break;
      spelled += texts[j].content;
      lines.push_back(texts[j]);
    }
    if (spelled == label) return lines;
  }
  return {};
}

TEST(AlertTimelineLabels, LongLabelsAreWrittenWholeInsideTheChart) {
  const std::string model = "meta-llama/Llama-3.1-70B-Instruct-with-a-long-served-model-name";
  const std::vector<AlertWindow> windows = {
      {"VLLMServerErrorsHigh",
       {{"handler", "/v1/chat/completions"},
        {"instance", "vllm-decode-replica-17.inference.svc.cluster.local:8000"},
        {"job", "vllm"},
        {"model_name", model},
        {"severity", "page"}},
       60.0,
       360.0,
       std::nullopt},
      {"Q", {}, 10.0, std::nullopt, 20.0},
  };
  const std::vector<FaultBar> faults = {
      {"http-5xx:20:1m:12m (20% of requests answered 5xx from 1m to 12m)", 60, 720}};
  const std::string svg = render_alert_timeline(windows, 800, faults);
  ASSERT_EQ(testing::xml_error(svg), "");
  const double width = std::stod(testing::attribute(testing::start_tags(svg, "svg")[0], "width"));
  const std::vector<TextElement> texts = svg_texts(svg);
  const std::string long_label =
      "VLLMServerErrorsHigh{handler=\"/v1/chat/completions\",instance=\"" +
      std::string(
          "vllm-decode-replica-17.inference.svc.cluster.local:"
          "8000\",job=\"vllm\",model_name=\"") +
      model + "\",severity=\"page\"}";
  ASSERT_GT(long_label.size(), 200u);
  for (const std::string& label :
       {long_label, std::string("Q"),
        std::string("fault http-5xx:20:1m:12m (20% of requests answered 5xx from 1m to 12m)")}) {
    const std::vector<TextElement> lines = lines_spelling(texts, label);
    ASSERT_FALSE(lines.empty()) << "not written whole: " << label;
    for (const TextElement& line : lines) {
      // Left-aligned (no end or middle anchor) at x >= 0, and its 11 px characters (at most
      // about 6.5 px each) end inside the chart.
      EXPECT_EQ(testing::attribute(line.start_tag, "text-anchor"), "") << line.start_tag;
      const double x = std::stod(testing::attribute(line.start_tag, "x"));
      EXPECT_GE(x, 0) << line.start_tag;
      EXPECT_LE(x + 6.5 * static_cast<double>(line.content.size()), width) << line.content;
    }
  }
  EXPECT_GT(lines_spelling(texts, long_label).size(), 1u);  // wrapped
  // Each row's lines sit below the previous row's: y grows along the document.
  double last_y = 0;
  for (const TextElement& t : texts) {
    if (testing::attribute(t.start_tag, "font-size") != "11" || t.content.size() < 2) continue;
    if (t.content == "pending" || t.content == "firing" || t.content == "fault") continue;
    if (t.content.find_first_not_of("0123456789.") == std::string::npos) continue;  // ticks
    const double y = std::stod(testing::attribute(t.start_tag, "y"));
    EXPECT_GT(y, last_y) << t.content;
    last_y = y;
  }
  EXPECT_NE(svg.find("<rect class=\"fault\""), std::string::npos);
}

TEST(AlertTimelineLabels, WrapCutsAfterACommaOrSpaceThatFits) {
  struct Row {
    const char* label;
    size_t max;
    std::vector<std::string> want;
  };
  for (const Row& r : {
           Row{"short", 10, {"short"}},
           Row{"abc,def,ghi", 8, {"abc,def,", "ghi"}},
           Row{"abc def ghi", 5, {"abc ", "def ", "ghi"}},
           Row{"abcdefghij", 4, {"abcd", "efgh", "ij"}},  // no separator: cut at the width
           Row{"", 4, {""}},
       }) {
    EXPECT_EQ(wrap_label(r.label, r.max), r.want) << r.label;
  }
}

RC_GTEST_PROP(AlertTimelineLabels, WrappedLinesSpellTheLabelAndFit, ()) {
  const std::string label =
      *rc::gen::container<std::string>(rc::gen::element('a', 'b', ',', ' ', '"', '=', '{', '}'));
  const size_t max = *rc::gen::inRange<size_t>(1, 30);
  const std::vector<std::string> lines = wrap_label(label, max);
  std::string joined;
  for (const std::string& line : lines) {
    RC_ASSERT(line.size() <= max);
    joined += line;
  }
  RC_ASSERT(joined == label);
  for (size_t i = 0; i + 1 < lines.size(); ++i) RC_ASSERT(!lines[i].empty());
}

}  // namespace
}  // namespace llm
