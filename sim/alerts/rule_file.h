// A Prometheus rule file (groups of recording and alerting rules) read from its YAML, with the
// checks that make `llmsim alerts` fail early and clearly: "FILE:LINE: what is wrong". Templates in
// labels and annotations are kept as written (they are not expanded).
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm {

struct PromRule {
  std::string alert;   // an alerting rule's name; empty for a recording rule
  std::string record;  // a recording rule's series name; empty for an alerting rule
  std::string expr;
  int64_t for_ns = 0;
  int64_t keep_firing_for_ns = 0;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  int line = 0;
};

struct PromRuleGroup {
  std::string name;
  int64_t interval_ns = 0;  // 0: the global evaluation interval
  std::vector<PromRule> rules;
  int line = 0;
};

struct PromRuleFile {
  std::vector<PromRuleGroup> groups;
};

class RuleFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `source` names the file in the errors ("rules.yml:12: ..."). Throws RuleFileError.
PromRuleFile parse_rule_file(const std::string& text, const std::string& source);
// Reads and parses a file. Throws RuleFileError (also when it cannot be read).
PromRuleFile read_rule_file(const std::string& path);

// A Prometheus duration ("0s", "30s", "1h30m", "2d"), or -1 when it is not one.
int64_t parse_prometheus_duration_ns(const std::string& text);

}  // namespace llm
