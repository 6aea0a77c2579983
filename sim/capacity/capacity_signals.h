// The capacity signals of the user's monitoring seed ("Capacity signals for adding a GPU"), read
// from a replay: the figures of the busiest hour (the aligned hour of trace time with the most
// arrivals, the earliest on a tie; for a trace shorter than an hour, first to last arrival), each
// compared between the window's first and second half, and the one of five patterns they show:
//  1. kv-bound:       the waiting queue grows and the KV cache is full (preemptions as evidence):
//                     more KV memory (fp8 KV cache, higher gpu_memory_utilization) or GPUs;
//  2. compute-bound:  the queue grows with the KV cache not full: more compute;
//  3. prefill-heavy:  prefill time rises with a flat queue: longer prompts or fewer prefix hits;
//  4. decode-bound:   inter-token latency rises with a flat queue: the batch is decode-bound;
//  5. headroom:       none of these.
// Thresholds are kQueueGrowth, kKvFull and kLatencyGrowth below.
// Thread-safety: BusyWindowObserver observes one replay (all its engines, one thread); the
// functions are pure.
#pragma once

#include <cstdint>
#include <string>

#include "core/engine_observer.h"
#include "sim/trace/trace.h"

namespace llm {

// The window's second half "grows" over the first when it is larger by this factor and by at
// least kQueueGrowthMin waiting requests (queue) or kLatencyGrowthMin seconds (latencies).
inline constexpr double kQueueGrowth = 1.5;
inline constexpr double kQueueGrowthMin = 1.0;
inline constexpr double kLatencyGrowth = 1.25;
inline constexpr double kLatencyGrowthMin = 0.001;
// Peak KV-cache usage at or above which the cache counts as full.
inline constexpr double kKvFull = 0.95;

struct TimeWindow {
  Nanos begin = 0;
  Nanos end = 0;  // exclusive
  int64_t arrivals = 0;
  bool whole_trace = false;  // the trace is shorter than an hour
};

// The busiest hour of a trace (after any arrival-rate scaling).
TimeWindow busiest_hour(const Trace& trace);

// The figures of one half of the window.
struct HalfFigures {
  double mean_waiting = 0;    // time-weighted, summed over engines
  double mean_prefill_s = 0;  // requests whose first token came in this half
  double mean_prompt_len = 0;
  double prefix_hit_rate = 0;  // cached / prompt tokens of those requests
  double mean_itl_s = 0;       // token gaps that ended in this half
  int64_t first_tokens = 0;
  int64_t itl_samples = 0;
};

struct WindowFigures {
  TimeWindow window;
  HalfFigures early, late;
  double peak_kv_usage = 0;  // largest of any engine's steps in the window
  int64_t preemptions = 0;
  int64_t peak_waiting = 0;  // summed over engines' latest steps, largest seen
  int64_t output_tokens = 0;
};

// Collects WindowFigures; give every engine of the replay the same observer.
class BusyWindowObserver final : public EngineObserver {
 public:
  explicit BusyWindowObserver(const TimeWindow& window);

  void on_token(const Request& request, Nanos time, Nanos itl_ns) override;
  void on_step(const StepStats& stats) override;

  WindowFigures figures() const;

 private:
  struct HalfSums {
    double waiting_ns = 0;  // num_waiting x step duration
    double prefill_s = 0;
    double prompt_tokens = 0;
    double cached_tokens = 0;
    double itl_s = 0;
    int64_t first_tokens = 0;
    int64_t itl_samples = 0;
  };
  HalfSums* half(Nanos time);

  TimeWindow window_;
  Nanos middle_;
  HalfSums early_, late_;
  WindowFigures figures_;
};

enum class CapacityPattern { kKvBound, kComputeBound, kPrefillHeavy, kDecodeBound, kHeadroom };

struct CapacitySignal {
  CapacityPattern pattern = CapacityPattern::kHeadroom;
  bool queue_growing = false;
  bool kv_full = false;
  bool prefill_rising = false;
  bool itl_rising = false;
};

CapacitySignal classify_capacity(const WindowFigures& figures);

// "kv-bound", "compute-bound", "prefill-heavy", "decode-bound", "headroom".
const char* capacity_pattern_name(CapacityPattern pattern);
// What the pattern shows, in the seed's terms, and the response it suggests.
std::string capacity_pattern_reading(CapacityPattern pattern);
std::string capacity_pattern_response(CapacityPattern pattern);

}  // namespace llm
