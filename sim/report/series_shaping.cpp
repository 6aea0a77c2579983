#include "sim/report/series_shaping.h"

#include <algorithm>

namespace llm {

XySeries downsample_envelope(const XySeries& s, size_t max_points) {
  const size_t n = std::min(s.x.size(), s.y.size());
  max_points = std::max<size_t>(max_points, 4);
  if (n <= max_points) return {{s.x.begin(), s.x.begin() + n}, {s.y.begin(), s.y.begin() + n}};
  XySeries out;
  auto keep = [&](size_t i) {
    out.x.push_back(s.x[i]);
    out.y.push_back(s.y[i]);
  };
  keep(0);
  // The points between the first and the last, in equal runs; each run's lowest and highest.
  const size_t interior = n - 2;
  const size_t buckets = (max_points - 2) / 2;
  for (size_t b = 0; b < buckets; ++b) {
    const size_t begin = 1 + b * interior / buckets;
    const size_t end = 1 + (b + 1) * interior / buckets;
    if (begin == end) continue;
    size_t lo = begin, hi = begin;
    for (size_t i = begin; i < end; ++i) {
      if (s.y[i] < s.y[lo]) lo = i;
      if (s.y[i] > s.y[hi]) hi = i;
    }
    keep(std::min(lo, hi));
    if (lo != hi) keep(std::max(lo, hi));
  }
  keep(n - 1);
  return out;
}

XySeries counter_rate(const std::vector<double>& time_s, const std::vector<double>& counter) {
  XySeries out;
  const size_t n = std::min(time_s.size(), counter.size());
  for (size_t i = 1; i < n; ++i) {
    const double dt = time_s[i] - time_s[i - 1];
    if (dt <= 0) continue;
    const double dv = counter[i] >= counter[i - 1] ? counter[i] - counter[i - 1] : counter[i];
    out.x.push_back(time_s[i]);
    out.y.push_back(dv / dt);
  }
  return out;
}

XySeries cdf_of_sorted(const SortedSamples& sorted, size_t max_points) {
  XySeries out;
  const size_t n = sorted.size();
  if (n == 0) return out;
  max_points = std::max<size_t>(max_points, 2);
  if (n <= max_points) {
    for (size_t i = 0; i < n; ++i) {
      out.x.push_back(sorted[i]);
      out.y.push_back(static_cast<double>(i + 1) / static_cast<double>(n));
    }
    return out;
  }
  for (size_t k = 0; k < max_points; ++k) {
    const double q = static_cast<double>(k) / static_cast<double>(max_points - 1);
    out.x.push_back(sorted_quantile(sorted, q));
    out.y.push_back(q);
  }
  return out;
}

XySeries cdf_of_sketch(const LogSketch& sketch, size_t max_points) {
  XySeries out;
  if (sketch.count() == 0) return out;
  max_points = std::max<size_t>(max_points, 1);
  for (size_t k = 1; k < max_points; ++k) {
    const double q = static_cast<double>(k) / static_cast<double>(max_points);
    out.x.push_back(sketch.quantile(q));
    out.y.push_back(q);
  }
  // The whole distribution ends at its largest value, which the sketch keeps exactly.
  out.x.push_back(sketch.summarize().max);
  out.y.push_back(1.0);
  return out;
}

}  // namespace llm
