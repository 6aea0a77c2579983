// The vector selectors of a PromQL expression ("vllm:num_requests_waiting",
// `up{job="vllm"}`, `{__name__=~"vllm:.*"}`), each with the window of time an evaluation reads
// of it: its range ([5m]) plus the ranges of the subqueries around it (rate(x[5m])[1h:1m]: 1h5m),
// 0 for an instant selector. Function, aggregation and keyword names, label names in by(),
// without(), on(), ignoring(), group_left() and group_right(), strings, numbers, offsets and @
// modifiers are not selectors. Used by llmsim alerts to check that every selector of a rule
// matches some series of the replay, and that the replay is long enough for the rule.
// The expression is assumed valid (promtool check rules ran first); on one that is not, the
// result is a best effort, never an exception.
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llm {

struct PromSelector {
  std::string text;       // as written, without its range: name{matchers}, name, or {matchers}
  int64_t window_ns = 0;  // the longest window an evaluation reads of it (0: an instant)
};

// In order of first appearance, each text once (with its longest window).
std::vector<PromSelector> promql_selectors(const std::string& expr);

}  // namespace llm
