// Puts the expressions of recording rules in place of their names in an alerting rule's
// expression, so that one range query over the raw series evaluates what Prometheus would compute
// from the recorded series: `NAME` becomes `(EXPR)`, wrapped in label_replace() for each of the
// recording rule's labels. Recording rules that use others are expanded recursively. A recorded
// name followed by label matchers or a range ("NAME{...}", "NAME[5m]") is refused: its inline form
// would not mean the same.
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>

#include "sim/alerts/rule_file.h"

namespace llm {

// The recording rules of a file by recorded name. Throws std::invalid_argument on a name recorded
// twice with different expressions.
std::map<std::string, PromRule> recording_rules(const PromRuleFile& file);

// Throws std::invalid_argument naming the recorded series that cannot be inlined, or a cycle.
std::string inline_recording_rules(const std::string& expr,
                                   const std::map<std::string, PromRule>& records);

}  // namespace llm
