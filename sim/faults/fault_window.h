// The faults a replay can be given (--fault of llmsim replay, alerts and sweep): one parser and
// one representation for the three commands. Each fault is active over a window [from, to) of
// the replay's clock (trace time 0 is the trace's start, after --arrival-rate-scale, as in the
// series and the alert timeline):
//   engine-down:ENGINE:FROM:TO       the engine's server is down: no scrape succeeds (up 0), the
//                                    requests it holds fail, new ones go to the other engines
//   http-5xx:PERCENT:FROM:TO         the API server answers that share of new requests with a 500
//   slow:ENGINE:FACTOR:FROM:TO       the engine's steps take FACTOR times as long
// Times are Prometheus-style durations ("90s", "10m", "1h", "1h30m", "500ms") or 0.
// What each fault does in the replay: sim/faults/fault_schedule.h and sim/replay/replay.h.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

enum class FaultKind : uint8_t { kEngineDown, kHttp5xx, kSlow };

struct FaultWindow {
  FaultKind kind = FaultKind::kEngineDown;
  int32_t engine = -1;  // engine-down, slow: the engine's index (0, 1, ...); -1 for http-5xx
  double percent = 0;   // http-5xx: the share of requests answered 5xx, in (0, 100]
  double factor = 1;    // slow: step times are multiplied by this (> 0)
  int64_t from_ns = 0;  // the window [from_ns, to_ns) on the replay's clock
  int64_t to_ns = 0;

  bool active_at(int64_t t_ns) const { return from_ns <= t_ns && t_ns < to_ns; }
  bool operator==(const FaultWindow&) const = default;
};

// A --fault value that is not a fault; what() names the part that is wrong.
class FaultSpecError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses one spec ("engine-down:1:2m:6m"). Throws FaultSpecError naming the part that is wrong
// ("ENGINE 'x' is not an engine index (0, 1, ...)").
FaultWindow parse_fault(std::string_view spec);

// The spec again, in its shortest form ("engine-down:1:2m:6m", "http-5xx:20:0s:10m").
std::string fault_spec_text(const FaultWindow& fault);
// In words: "engine 1 down from 2m to 6m", "20% of requests answered 5xx from 0s to 10m",
// "engine 0 steps 3x slower from 1m to 2m".
std::string fault_description(const FaultWindow& fault);
// Every fault as "SPEC (description)", joined with "; ": for a report's header.
std::string faults_text(const std::vector<FaultWindow>& faults);
// The kind's name as in the spec ("engine-down", "http-5xx", "slow").
const char* fault_kind_name(FaultKind kind);

// Seconds of the window inside a run of `run_s` seconds (its overlap with [0, run_s)); 0 for a
// window that starts after the run ended (it never ran).
double fault_active_s(const FaultWindow& fault, double run_s);

// Throws FaultSpecError when a fault names an engine the replay does not have.
void check_fault_engines(const std::vector<FaultWindow>& faults, int32_t num_engines);

}  // namespace llm
