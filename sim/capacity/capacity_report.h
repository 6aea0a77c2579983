// What `llmsim capacity` prints and writes about its replays: one replay's figures
// (CapacityPoint), the capacity-signals block of the busiest hour, a what-if's line, and the JSON
// objects of --result-json (a replay's summary.json object, its SLO results, the signals).
// Thread-safety: plain data and pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/capacity/capacity_signals.h"
#include "sim/replay/replay_report.h"
#include "sim/replay/slo.h"

namespace llm {

// One replay of a capacity search.
struct CapacityPoint {
  ReplaySummary summary;
  std::vector<SloResult> slo;
  bool met = false;  // every SLO met
  WindowFigures window;
};

// printf-formatted number ("%.4g" by default).
std::string capacity_number(double value, const char* format = "%.4g");

// The busiest hour's figures, half by half, then the pattern and the seed's response; `engines`
// is the number of engines the replay had. `slo_met` says whether that replay met every SLO: a
// headroom pattern where the SLOs are missed is not called headroom but said to contradict them
// (the misses do not come from load building up in the busiest hour).
std::string format_capacity_signals(const WindowFigures& figures, int64_t engines, bool slo_met);

// "  NAME: ttft_p99 1.2 s met, ...; busiest hour: preemptions 0, peak KV 12.5%; KV blocks N".
std::string format_what_if(const std::string& name, const CapacityPoint& point);

// null for a null point.
nlohmann::ordered_json capacity_summary_json(const CapacityPoint* point);  // summary.json object
nlohmann::ordered_json capacity_slo_json(
    const CapacityPoint* point);  // {key: {value, target, met}}
nlohmann::ordered_json capacity_signals_json(const WindowFigures& figures, int64_t engines,
                                             bool slo_met);

// The pattern name as printed and written: capacity_pattern_name, or "slo-missed-without-load-
// signal" for a headroom pattern where the SLOs are missed.
std::string capacity_verdict_pattern(const WindowFigures& figures, bool slo_met);

}  // namespace llm
