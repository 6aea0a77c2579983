// The production Clock: std::chrono::steady_clock in integer nanoseconds. wait_until sleeps, so
// the simulated backend's modelled step time passes in real time in llmserve.
// Thread-safety: now() is safe from any thread; wait_until blocks the calling thread.
#pragma once

#include <chrono>
#include <thread>

#include "core/clock.h"

namespace llm {

class SteadyClock final : public Clock {
 public:
  Nanos now() const override {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  void wait_until(Nanos t) override {
    const Nanos delay = t - now();
    if (delay > 0) std::this_thread::sleep_for(std::chrono::nanoseconds(delay));
  }
};

}  // namespace llm
