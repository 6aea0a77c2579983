#include "sim/alerts/rule_file.h"

#include <fstream>
#include <set>
#include <sstream>

#include "sim/alerts/yaml_subset.h"
#include "sim/time_text.h"

namespace llm {
namespace {

class RuleReader {
 public:
  explicit RuleReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw RuleFileError(source_ + ":" + std::to_string(line) + ": " + what);
  }

  const std::string& scalar(const YamlNode& n, const std::string& key) const {
    if (!n.is_scalar()) fail(n.line, "'" + key + "' must be a string");
    return n.scalar;
  }

  int64_t duration(const YamlNode& n, const std::string& key) const {
    const int64_t ns = parse_prometheus_duration_ns(scalar(n, key));
    if (ns < 0) {
      fail(n.line,
           "'" + key + "': expected a duration such as 30s, 5m or 1h, got '" + n.scalar + "'");
    }
    return ns;
  }

  std::map<std::string, std::string> string_map(const YamlNode& n, const std::string& key) const {
    std::map<std::string, std::string> out;
    if (n.is_scalar() && n.scalar.empty()) return out;
    if (!n.is_map()) fail(n.line, "'" + key + "' must be a map of names to strings");
    for (const auto& [k, v] : n.entries) out[k] = scalar(v, key + "." + k);
    return out;
  }

  PromRule rule(const YamlNode& n) const {
    if (!n.is_map()) fail(n.line, "a rule must be a map with 'alert' or 'record' and 'expr'");
    PromRule r;
    r.line = n.line;
    bool have_expr = false;
    for (const auto& [key, v] : n.entries) {
      if (key == "alert") {
        r.alert = scalar(v, key);
      } else if (key == "record") {
        r.record = scalar(v, key);
      } else if (key == "expr") {
        r.expr = scalar(v, key);
        have_expr = true;
      } else if (key == "for") {
        r.for_ns = duration(v, key);
      } else if (key == "keep_firing_for") {
        r.keep_firing_for_ns = duration(v, key);
      } else if (key == "labels") {
        r.labels = string_map(v, key);
      } else if (key == "annotations") {
        r.annotations = string_map(v, key);
      } else {
        fail(v.line, "unknown rule field '" + key +
                         "' (expected alert, record, expr, for, keep_firing_for, labels, "
                         "annotations)");
      }
    }
    if (r.alert.empty() == r.record.empty()) {
      fail(n.line, "a rule needs exactly one of 'alert' and 'record'");
    }
    if (!have_expr || r.expr.find_first_not_of(" \n") == std::string::npos) {
      fail(n.line, "rule " + (r.alert.empty() ? r.record : r.alert) + ": missing 'expr'");
    }
    if (!r.record.empty() &&
        (r.for_ns != 0 || r.keep_firing_for_ns != 0 || !r.annotations.empty())) {
      fail(n.line, "recording rule " + r.record +
                       ": 'for', 'keep_firing_for' and 'annotations' belong to alerting rules");
    }
    return r;
  }

  PromRuleGroup group(const YamlNode& n) const {
    if (!n.is_map()) fail(n.line, "a group must be a map with 'name' and 'rules'");
    PromRuleGroup g;
    g.line = n.line;
    bool have_rules = false;
    for (const auto& [key, v] : n.entries) {
      if (key == "name") {
        g.name = scalar(v, key);
      } else if (key == "interval") {
        g.interval_ns = duration(v, key);
        if (g.interval_ns == 0) fail(v.line, "'interval' must be above 0");
      } else if (key == "rules") {
        have_rules = true;
        if (v.is_scalar() && v.scalar.empty()) continue;
        if (!v.is_sequence()) fail(v.line, "'rules' must be a list of rules");
        for (const YamlNode& item : v.items) g.rules.push_back(rule(item));
      } else if (key == "limit" || key == "query_offset") {
        // Accepted by Prometheus; nothing to simulate here.
      } else {
        fail(v.line, "unknown group field '" + key + "' (expected name, interval, rules)");
      }
    }
    if (g.name.empty()) fail(n.line, "a group needs a 'name'");
    if (!have_rules) fail(n.line, "group " + g.name + ": missing 'rules'");
    return g;
  }

  PromRuleFile file(const YamlNode& root) const {
    if (!root.is_map()) fail(root.line, "a rule file is a map with 'groups'");
    PromRuleFile f;
    std::set<std::string> names;
    for (const auto& [key, v] : root.entries) {
      if (key != "groups") fail(v.line, "unknown top-level field '" + key + "' (expected groups)");
      if (v.is_scalar() && v.scalar.empty()) continue;
      if (!v.is_sequence()) fail(v.line, "'groups' must be a list of groups");
      for (const YamlNode& item : v.items) {
        f.groups.push_back(group(item));
        if (!names.insert(f.groups.back().name).second) {
          fail(item.line, "duplicate group name '" + f.groups.back().name + "'");
        }
      }
    }
    return f;
  }

 private:
  std::string source_;
};

}  // namespace

int64_t parse_prometheus_duration_ns(const std::string& text) {
  if (text == "0" || text == "0s" || text == "0m" || text == "0ms") return 0;
  const auto ns = parse_duration_ns(text);
  return ns ? *ns : -1;
}

PromRuleFile parse_rule_file(const std::string& text, const std::string& source) {
  YamlNode root;
  try {
    root = parse_yaml_subset(text);
  } catch (const YamlError& e) {
    throw RuleFileError(source + ":" + e.what());
  }
  return RuleReader(source).file(root);
}

PromRuleFile read_rule_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RuleFileError(path + ": cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_rule_file(text.str(), path);
}

}  // namespace llm
