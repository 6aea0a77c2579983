// What `llmsim capacity` found, as one struct (CapacityResult: every candidate's engine search, one
// engine's arrival-rate search, the busiest hour's signals and the memory what-ifs), and the two
// ways it is written from that struct alone: the text on stdout (format_capacity) and the
// --result-json object (capacity_json), so that the two cannot tell different stories. The
// replays behind it are sim/cli/capacity_command.cpp's.
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/capacity/capacity_report.h"
#include "sim/capacity/capacity_search.h"
#include "sim/replay/slo.h"

namespace llm {

// One engine's load is searched in steps of 2^(1/32) of the trace's arrival rate, from 2^-10 to
// 2^10 times it.
inline constexpr int64_t kScaleStepsPerDoubling = 32;
inline constexpr int64_t kScaleSteps = 10 * kScaleStepsPerDoubling;

// The arrival-rate scale `step` steps from `base`.
double scale_at(double base, int64_t step);

// Engine arguments set on top of the given ones: flag (without dashes), value.
using CapacitySettings = std::vector<std::pair<std::string, std::string>>;

// "--max-num-seqs 64 --kv-cache-dtype fp8", or "(the given engine arguments)" for none.
std::string describe_settings(const CapacitySettings& settings);

// One search's replays: the outcome and every replayed point, by x.
struct CapacitySearch {
  SearchOutcome outcome;
  std::map<int64_t, CapacityPoint> points;
};

// A --search candidate and its search of the fewest engines.
struct CapacityCandidate {
  CapacitySettings settings;
  CapacitySearch engines;
};

// A memory what-if, replayed at the signals' number of engines unless it cannot run.
struct CapacityWhatIf {
  std::string flag;  // without dashes
  std::string value;
  std::string error;  // why it cannot run (then it is not replayed); empty: `point` is its replay
  CapacityPoint point;
};

struct CapacityResult {
  // What was asked.
  std::string trace_path;
  size_t num_requests = 0;
  std::vector<SloTarget> slo;
  std::string routing_policy;
  int32_t max_engines = 0;
  int64_t tensor_parallel = 1;          // GPUs per engine (--tensor-parallel-size)
  std::optional<double> gpu_hour_cost;  // --gpu-hour-cost, else the GPU's list price (gpu_price.h)
  std::string gpu_hour_cost_source;     // where a default price is from (empty: --gpu-hour-cost)
  double trace_rate_per_s = 0;          // the trace's requests per second of arrivals, unscaled
  // 1. Every candidate's engine search; `best` is the answer's index (candidates.size(): none
  // found one within max_engines).
  std::vector<CapacityCandidate> candidates;
  size_t best = 0;
  // 2. The largest load one engine sustains, with the shown candidate: the search of "one engine
  // misses the SLOs at step x" around `base_scale` (its --arrival-rate-scale).
  CapacitySearch scale;
  double base_scale = 1.0;
  // 3. The busiest hour's signals at signal_engines() and the memory what-ifs replayed there.
  bool kv_blocks_fixed = false;  // --num-gpu-blocks-override: the what-ifs cannot add blocks
  std::vector<CapacityWhatIf> what_ifs;

  // The candidate whose figures are shown: the answer, or the first when there is none.
  const CapacityCandidate& shown() const;
  // The fewest engines meeting every SLO, if any within max_engines.
  std::optional<int64_t> engines() const;
  // The replays at the answer and one engine fewer (at max_engines when there is no answer);
  // null where there is none.
  const CapacityPoint* at_answer() const;
  const CapacityPoint* below_answer() const;
  // The largest arrival-rate scale one engine meets the SLOs at; none when it misses even at the
  // smallest.
  std::optional<double> sustained_scale() const;
  // The deployment whose busiest hour shows why the next engine is needed: one engine below the
  // answer (the answer when one engine suffices), or max_engines without an answer.
  int64_t signal_engines() const;
  // The answer in GPUs: engines x tensor_parallel; GPU-hours over the replay at the answer (its
  // duration_s); their cost at gpu_hour_cost. None without an answer (or without a cost).
  std::optional<int64_t> gpus() const;
  std::optional<double> gpu_hours() const;
  std::optional<double> cost() const;
};

// Where a replayed SLO figure got worse, by more than kReversalTolerance of its value, with more
// engines (`from` fewer, `to` more engines):
// the search assumes it never does, so each such pair is shown rather than hidden.
inline constexpr double kReversalTolerance = 0.02;
struct FigureReversal {
  std::string key;
  int64_t from = 0, to = 0;
  double from_value = 0, to_value = 0;
};
std::vector<FigureReversal> figure_reversals(const std::map<int64_t, CapacityPoint>& points);

// The text `llmsim capacity` prints.
std::string format_capacity(const CapacityResult& result);

// The --result-json object: {"engines", "engine_args", "slo", "at_answer", "below_answer",
// "slo_at_answer", "slo_below_answer", "monotone", "replayed", "figure_reversals", "gpus",
// "gpu_hours", "cost", "one_engine_max_arrival_rate_scale", "one_engine_requests_per_s",
// "one_engine_scale_monotone", "signals", "what_ifs"}.
nlohmann::ordered_json capacity_json(const CapacityResult& result);

}  // namespace llm
