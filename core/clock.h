// The Clock seam: every engine timestamp comes from here, in integer nanoseconds of one monotonic
// time line. llmsim uses SimClock (time moves only when the simulator says so); llmserve uses a
// steady clock (in server/). Nothing in core/ reads the wall clock.
// Thread-safety: SimClock is not thread-safe; it belongs to the simulator's single thread.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace llm {

using Nanos = int64_t;
inline constexpr Nanos kNanosPerSecond = 1'000'000'000;
inline constexpr Nanos kNanosPerMs = 1'000'000;
inline constexpr Nanos kNoTime = -1;  // a timestamp that has not happened (yet)

// Division (correctly rounded) so that 300'000'000 ns is exactly the double 0.3: a latency equal to
// a histogram bound must land in that bound's bucket.
inline double nanos_to_seconds(Nanos ns) { return static_cast<double>(ns) / 1e9; }
inline double nanos_to_ms(Nanos ns) { return static_cast<double>(ns) / 1e6; }

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Nanos now() const = 0;
  // Returns once now() >= t. A simulated clock jumps; a real clock sleeps.
  virtual void wait_until(Nanos t) = 0;
};

class SimClock final : public Clock {
 public:
  explicit SimClock(Nanos start = 0) : now_(start) {}
  Nanos now() const override { return now_; }
  void wait_until(Nanos t) override {
    if (t > now_) now_ = t;
  }
  // Moves the clock to t. Throws std::logic_error if t < now(): time never goes backwards.
  void set(Nanos t) {
    if (t < now_) throw std::logic_error("SimClock: simulated time never goes backwards");
    now_ = t;
  }

 private:
  Nanos now_;
};

}  // namespace llm
