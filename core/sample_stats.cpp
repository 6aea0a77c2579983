#include "core/sample_stats.h"

#include <algorithm>
#include <cmath>

namespace llm {
namespace {

// Buckets cover [kMin, kMin * kGamma^kBuckets): 1e-9 up to about 1e5 with kGamma = 1.001.
constexpr double kMin = 1e-9;
constexpr double kGamma = 1.001;
constexpr int kBuckets = 32300;

}  // namespace

double sorted_quantile(const std::vector<double>& sorted, double q) {
  return sorted_quantile_of(sorted, q);
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return sorted_quantile(values, q);
}

Distribution sort_and_summarize(std::vector<double>& values) {
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  return summarize_sorted(values, sum);
}

Distribution ExactSamples::summarize() { return sort_and_summarize(values_); }

LogSketch::LogSketch() : buckets_(kBuckets, 0) {}

void LogSketch::add(double value) {
  ++count_;
  sum_ += value;
  max_ = std::max(max_, value);
  if (value <= 0) {
    ++zeros_;
    return;
  }
  if (value == last_value_) {
    ++buckets_[last_index_];
    return;
  }
  int index = static_cast<int>(std::floor(std::log(value / kMin) / std::log(kGamma)));
  index = std::clamp(index, 0, kBuckets - 1);
  ++buckets_[index];
  last_value_ = value;
  last_index_ = index;
}

double LogSketch::quantile(double q) const {
  const int64_t rank = static_cast<int64_t>(std::ceil(q * static_cast<double>(count_)));
  int64_t seen = zeros_;
  if (rank <= seen) return 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      const double lo = kMin * std::pow(kGamma, i);
      return std::min(lo * (1 + kGamma) / 2, max_);  // bucket midpoint
    }
  }
  return max_;
}

Distribution LogSketch::summarize() const {
  Distribution d;
  d.count = count_;
  if (count_ == 0) return d;
  d.mean = sum_ / static_cast<double>(count_);
  d.p50 = quantile(0.50);
  d.p90 = quantile(0.90);
  d.p95 = quantile(0.95);
  d.p99 = quantile(0.99);
  d.p999 = quantile(0.999);
  d.max = max_;
  return d;
}

}  // namespace llm
