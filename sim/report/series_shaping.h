// Bounding the size of the report's plots: a time series thinned to at most N points keeping
// each bucket's lowest and highest value (peaks survive), counters turned into per-second rates,
// and a sample set turned into a CDF of at most N points.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <vector>

#include "core/sample_stats.h"
#include "sim/replay/sorted_samples.h"

namespace llm {

struct XySeries {
  std::vector<double> x;
  std::vector<double> y;
};

// At most max_points (>= 4) points: unchanged when it already fits; otherwise the first and the
// last point and, for each of (max_points - 2) / 2 equal runs of the points between, its lowest
// and its highest, in x order.
XySeries downsample_envelope(const XySeries& series, size_t max_points);

// The per-second rate of a cumulative counter between consecutive samples, at the later sample's
// time (one point fewer; a counter reset counts from zero).
XySeries counter_rate(const std::vector<double>& time_s, const std::vector<double>& counter);

// The empirical CDF (x: value, y: fraction of samples <= x) of `sorted` (ascending), every sample
// when there are at most max_points, else max_points evenly spaced quantiles (min and max
// included). `sorted` may be on disk (a long replay): it reads at most 2 * max_points values.
XySeries cdf_of_sorted(const SortedSamples& sorted, size_t max_points);

// The CDF of a sketch at max_points evenly spaced quantiles (1/N ... 1; 1 is the exact maximum).
XySeries cdf_of_sketch(const LogSketch& sketch, size_t max_points);

}  // namespace llm
