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
// is the number of engines the replay had.
std::string format_capacity_signals(const WindowFigures& figures, int64_t engines);

// "  NAME: ttft_p99 1.2 s met, ...; busiest hour: preemptions 0, peak KV 12.5%; KV blocks N".
std::string format_what_if(const std::string& name, const CapacityPoint& point);

// null for a null point.
nlohmann::ordered_json capacity_summary_json(const CapacityPoint* point);  // summary.json object
nlohmann::ordered_json capacity_slo_json(
    const CapacityPoint* point);  // {key: {value, target, met}}
nlohmann::ordered_json capacity_signals_json(const WindowFigures& figures, int64_t engines);

}  // namespace llm
