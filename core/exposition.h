// Prometheus text exposition (format 0.0.4) of prometheus-cpp's collected families, printed the way
// vLLM's Python client prints them: counters as NAME_total, histogram bounds and all values as
// Python floats (le="1.0", not prometheus-cpp's le="1"), summaries as NAME_count and NAME_sum
// (after their quantiles, if any), series sorted by labels. With a timestamp it also writes
// OpenMetrics sample lines (timestamps in seconds).
// Thread-safety: pure functions.
#pragma once

#include <prometheus/metric_family.h>

#include <string>
#include <vector>

namespace llm {

// The full /metrics body.
std::string serialize_exposition(const std::vector<prometheus::MetricFamily>& families);

// One sample line's name and label text, e.g. `vllm:x_bucket{engine="0",le="1.0"}`, for every
// sample of a family in exposition order, with its value. Used by the exposition and the
// time-series writers so both print identical series.
struct SampleRef {
  std::string series;  // name{labels}
  double value = 0;
  size_t metric = 0;  // index of its label set within the family (a histogram's samples share it)
};
void collect_samples(const prometheus::MetricFamily& family, std::vector<SampleRef>& out);

// The order in which a family's metrics (label sets) are printed: sorted by labels.
std::vector<size_t> sorted_metric_order(const prometheus::MetricFamily& family);
// The values of one metric's samples in exposition order (a histogram: buckets, count, sum).
void append_sample_values(const prometheus::MetricFamily& family,
                          const prometheus::ClientMetric& metric, std::vector<double>& out);

// The name printed in # HELP / # TYPE lines (counters get _total in the 0.0.4 text format).
std::string exposition_name(const prometheus::MetricFamily& family);
const char* type_name(prometheus::MetricType type);

}  // namespace llm
