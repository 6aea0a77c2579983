// Overload said out loud: whether an engine's waiting queue grew without draining while requests
// kept arriving (the engine was unstable: the arrivals outpaced it), and from when.
//
// The test, per engine, over the arrival window [A0, A1] (the trace's first and last arrival):
//  - W(t) is the engine's waiting queue after each of its steps, held until its next step (an
//    idle engine has none waiting);
//  - t0 is the last step end in the window after which nothing was waiting (A0 when none was):
//    from t0 on, the queue never drained before the last arrival;
//  - the engine was unstable from t0 when that run lasted at least kOverloadMinShare of the
//    window, and the queue grew over it: the time-weighted mean of W over the run's second half
//    is at least kOverloadGrowth times, and kOverloadMinGrowth requests more than, the mean over
//    its first half.
// A burst that drains sets t0 after it, and a queue that is draining or flat does not grow, so
// neither is called unstable; nor is a run shorter than the share (a burst near the end of the
// trace cannot be told from overload). The means are taken on kOverloadBuckets equal buckets of
// the window. A deployment is unstable when one of its engines is, from the earliest t0.
// Thread-safety: an OverloadObserver observes one engine of one replay.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/engine_observer.h"

namespace llm {

inline constexpr double kOverloadMinShare = 0.2;
inline constexpr double kOverloadGrowth = 1.5;
inline constexpr double kOverloadMinGrowth = 2.0;
inline constexpr int kOverloadBuckets = 1024;

struct OverloadFigures {
  bool unstable = false;
  double since_s = 0;          // t0 (unstable only)
  int64_t waiting_at_end = 0;  // W at the last arrival (summed over engines)
  double early_mean = 0;       // mean W over the first and second half of the run from t0
  double late_mean = 0;        // (summed over engines)
  double growth_per_s = 0;     // waiting_at_end / (A1 - t0): requests added per second
};

class OverloadObserver final : public EngineObserver {
 public:
  OverloadObserver(Nanos first_arrival, Nanos last_arrival);

  void on_step(const StepStats& stats) override;

  OverloadFigures figures() const;

 private:
  Nanos begin_, end_;
  double bucket_ns_;
  std::vector<double> area_;  // the integral of W over each bucket, request-nanoseconds
  Nanos last_time_;
  int64_t last_waiting_ = 0;
  Nanos drained_at_;  // t0 so far
  int64_t waiting_at_end_ = 0;
  bool end_seen_ = false;  // a step ended after the last arrival
};

// The deployment's figures from its engines' (unstable when one is, from the earliest t0).
OverloadFigures combine_overload(const std::vector<OverloadFigures>& engines);

// "unstable from 312.4 s: waiting requests grew without draining (4709 waiting at the last
// arrival, +3.9/s)" or "stable (the waiting queue drained or did not grow)".
std::string describe_overload(const OverloadFigures& figures);

}  // namespace llm
