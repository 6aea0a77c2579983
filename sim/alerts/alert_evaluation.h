// Evaluates every alerting rule of a rule file over a time range, as a Prometheus server would have
// at its evaluation times (start, start + interval, ... up to end): each rule's expression, with
// the file's recording rules inlined (recording_inline.h), is asked of a range query at the
// group's interval; each label set's presence at each evaluation goes through the alert state
// machine (alert_states.h). The range query is a callback, so that tests can answer it themselves
// and `llmsim alerts` asks a real Prometheus (sim/cli/alerts_prometheus.h).
// Thread-safety: pure given the callback.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/alerts/alert_states.h"
#include "sim/alerts/rule_file.h"

namespace llm {

using PromLabels = std::map<std::string, std::string>;

// One series of a range query's matrix: its labels and the times (Unix ms) it has a sample at.
struct RangeSeries {
  PromLabels labels;
  std::vector<int64_t> times_ms;
};

// The series of a /api/v1/query_range answer. Throws std::runtime_error with Prometheus's
// errorType and error when the query failed, or saying what is wrong with the JSON.
std::vector<RangeSeries> parse_query_range_answer(const std::string& json);

// The number of series in a /api/v1/series answer. Throws std::runtime_error as above.
size_t series_answer_count(const std::string& json);

// (expression, start, end, step), times in Unix ns: the matrix of that range query.
using RangeQueryFn = std::function<std::vector<RangeSeries>(
    const std::string& expr, int64_t start_ns, int64_t end_ns, int64_t step_ns)>;

struct AlertLabelSetTimeline {
  PromLabels labels;  // the alert's labels: result labels without __name__, rule labels, alertname
  std::vector<AlertEpisode> episodes;
};

struct AlertRuleTimeline {
  std::string alert;
  std::string group;
  int64_t interval_ns = 0;
  int64_t for_ns = 0;
  int64_t keep_firing_for_ns = 0;
  std::vector<AlertLabelSetTimeline> label_sets;  // sorted by labels
  bool ever_fired() const;
};

// The most evaluations asked of one range query (Prometheus refuses more than 11,000 points).
inline constexpr int64_t kMaxStepsPerQuery = 10'000;

// `default_interval_ns` serves the groups without an interval. Throws std::invalid_argument for a
// rule that cannot be evaluated (see recording_inline.h, duplicate label sets) and whatever the
// callback throws.
std::vector<AlertRuleTimeline> evaluate_alert_rules(const PromRuleFile& file,
                                                    int64_t default_interval_ns, int64_t start_ns,
                                                    int64_t end_ns, const RangeQueryFn& query);

}  // namespace llm
