// Summary statistics for a report: mean and percentiles of a set of values.
// ExactSamples keeps every value (per-request figures: one value per request). LogSketch keeps a
// fixed array of logarithmic buckets (relative error under 0.05%) for streams too long to keep,
// such as one inter-token latency per output token.
// Thread-safety: none.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace llm {

struct Distribution {
  int64_t count = 0;
  double mean = 0;
  double p50 = 0;
  double p90 = 0;
  double p99 = 0;
  double max = 0;
  double p95 = 0;   // after max, so that brace initializers of the fields above stay valid
  double p999 = 0;  // the 99.9th percentile
};

// The q-quantile (0 <= q <= 1) of `sorted` (ascending, not empty), interpolated linearly between
// the closest ranks as numpy's default does.
double sorted_quantile(const std::vector<double>& sorted, double q);

// The same of any ascending sequence with size() and operator[] (e.g. samples kept on disk,
// sim/replay/sorted_samples.h): the same arithmetic, so the same double.
template <typename Sorted>
double sorted_quantile_of(const Sorted& sorted, double q) {
  const double rank = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(rank));
  const size_t hi = std::min<size_t>(lo + 1, sorted.size() - 1);
  const double at_lo = sorted[lo];
  const double at_hi = sorted[hi];
  return at_lo + (at_hi - at_lo) * (rank - static_cast<double>(lo));
}

// The same of values in any order; 0 when there are none.
double quantile(std::vector<double> values, double q);

// The count, mean (`sum`, added in ascending order, over the count), percentiles and maximum of
// `sorted`, any ascending sequence with size(), operator[] and back().
template <typename Sorted>
Distribution summarize_sorted(const Sorted& sorted, double sum) {
  Distribution d;
  d.count = static_cast<int64_t>(sorted.size());
  if (sorted.size() == 0) return d;
  d.mean = sum / static_cast<double>(sorted.size());
  d.p50 = sorted_quantile_of(sorted, 0.50);
  d.p90 = sorted_quantile_of(sorted, 0.90);
  d.p95 = sorted_quantile_of(sorted, 0.95);
  d.p99 = sorted_quantile_of(sorted, 0.99);
  d.p999 = sorted_quantile_of(sorted, 0.999);
  d.max = sorted.back();
  return d;
}

// Sorts `values` in place and gives summarize_sorted of them, the sum taken in ascending order.
Distribution sort_and_summarize(std::vector<double>& values);

class ExactSamples {
 public:
  void add(double value) { values_.push_back(value); }
  size_t size() const { return values_.size(); }
  // The values added, in ascending order once summarize() has run.
  const std::vector<double>& values() const { return values_; }
  void reserve(size_t n) { values_.reserve(n); }
  // Percentiles interpolate linearly between closest ranks (numpy's default).
  Distribution summarize();

 private:
  std::vector<double> values_;
};

class LogSketch {
 public:
  LogSketch();
  void add(double value);  // values <= 0 count as exact zeros
  Distribution summarize() const;
  // The q-quantile (0 <= q <= 1) as a bucket midpoint; 0 when empty.
  double quantile(double q) const;
  int64_t count() const { return count_; }

 private:
  std::vector<int64_t> buckets_;
  int64_t zeros_ = 0;
  int64_t count_ = 0;
  double sum_ = 0;
  double max_ = 0;
  // The bucket of the last positive value added: a decode step gives every sequence in its batch
  // the same inter-token latency, so most adds repeat it (and skip the logarithm).
  double last_value_ = -1;
  int last_index_ = 0;
};

}  // namespace llm
