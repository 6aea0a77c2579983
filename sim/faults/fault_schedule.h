// The fault windows of a replay (fault_window.h) as the replay driver asks about them: which
// engines are down at an instant and the instants at which one goes down or comes back (the
// engine-down windows of one engine merged where they overlap or touch), how much slower an
// engine's steps are (the factors of overlapping slow windows multiply), and whether the API
// server answers a request with a 5xx (overlapping http-5xx windows: the largest share applies;
// one seeded draw per trace request, so the same requests fail whatever the routing).
// Thread-safety: immutable after construction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/faults/fault_window.h"

namespace llm {

class FaultSchedule {
 public:
  FaultSchedule() = default;
  // `faults` must name engines below num_engines (check_fault_engines).
  FaultSchedule(const std::vector<FaultWindow>& faults, size_t num_engines, uint64_t seed);

  bool empty() const { return empty_; }

  // An engine going down (down) or coming back (!down) at `time`.
  struct Transition {
    int64_t time = 0;
    size_t engine = 0;
    bool down = false;
  };
  // Sorted by time (then engine, a coming back before a going down at one instant).
  const std::vector<Transition>& transitions() const { return transitions_; }
  bool engine_down(size_t engine, int64_t t_ns) const;
  bool any_down(int64_t t_ns) const;
  // The factor on the duration of a step of `engine` that begins at t_ns (1: none).
  double slow_factor(size_t engine, int64_t t_ns) const;
  // The share (0 to 100) of requests arriving at t_ns that the API server answers with a 5xx.
  double http_5xx_percent(int64_t t_ns) const;
  // Whether trace request `request`, arriving at t_ns, is answered with a 5xx.
  bool answers_5xx(size_t request, int64_t t_ns) const;

 private:
  struct Window {
    int64_t from = 0;
    int64_t to = 0;
  };
  bool empty_ = true;
  uint64_t seed_ = 0;
  std::vector<std::vector<Window>> down_;  // per engine, merged, sorted
  std::vector<Transition> transitions_;
  std::vector<FaultWindow> slow_;
  std::vector<FaultWindow> http_5xx_;
};

}  // namespace llm
