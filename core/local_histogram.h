// A histogram accumulated on the engine thread with plain arithmetic (no lock, no allocation per
// observation), flushed into a prometheus-cpp Histogram in one call. Bounds are inclusive upper
// bounds, as Prometheus's `le`.
// Thread-safety: none; observe() and flush_into() belong to the owning (engine) thread; the
// prometheus-cpp histogram it flushes into is itself thread-safe for scrapes.
#pragma once

#include <prometheus/histogram.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace llm {

class LocalHistogram {
 public:
  explicit LocalHistogram(std::vector<double> bounds)
      : bounds_(std::move(bounds)), increments_(bounds_.size() + 1, 0.0) {}

  void observe(double value) {
    const size_t bucket = static_cast<size_t>(
        std::lower_bound(bounds_.begin(), bounds_.end(), value) - bounds_.begin());
    increments_[bucket] += 1.0;
    sum_ += value;
    dirty_ = true;
  }

  void flush_into(prometheus::Histogram& target) {
    if (!dirty_) return;
    target.ObserveMultiple(increments_, sum_);
    std::fill(increments_.begin(), increments_.end(), 0.0);
    sum_ = 0;
    dirty_ = false;
  }

  const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<double> bounds_;
  std::vector<double> increments_;  // per bucket (not cumulative), +Inf last
  double sum_ = 0;
  bool dirty_ = false;
};

}  // namespace llm
