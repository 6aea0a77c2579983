// Records the Prometheus registry of a replay at each simulated scrape and writes the whole run as
// time series: OpenMetrics text for `promtool tsdb create-blocks-from openmetrics` (families once,
// each series' samples in time order, timestamps in seconds, `# EOF`) and promtool unit-test
// `input_series` (values in promtool's expanding notation, one per scrape interval).
// Gauges are what a scrape at that instant would read; counters and histograms are cumulative.
// Thread-safety: none; the simulator thread.
#pragma once

#include <prometheus/client_metric.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/vllm_metrics.h"

namespace llm {

class MetricsRecorder {
 public:
  MetricsRecorder(prometheus::Registry& registry, std::vector<EngineMetrics*> engines);

  // Flushes the engines' pending observations and stores every series' value at `time`.
  void scrape(Nanos time);
  size_t num_scrapes() const { return times_.size(); }
  const std::vector<Nanos>& times() const { return times_; }

  // Every recorded series of the sample name `name` (as exposed: vllm:num_requests_running,
  // vllm:num_preemptions_total, ...), each as its name{labels} text and one value per scrape.
  struct RecordedSeries {
    std::string text;
    std::vector<double> values;
  };
  std::vector<RecordedSeries> series_named(std::string_view name) const;

  // start_unix_ns is the wall-clock instant of simulated time 0.
  void write_openmetrics(std::ostream& out, int64_t start_unix_ns) const;
  // A YAML fragment: `interval: ...` and `input_series:`; sample k is at k x interval.
  void write_promtool_series(std::ostream& out, Nanos interval) const;

 private:
  struct Family {
    std::string name;  // without _total
    std::string help;
    std::string type;
    size_t first_sample = 0;  // range in series_
    size_t num_samples = 0;
    std::vector<size_t> order;  // collected metric index of each printed label set
    std::vector<std::vector<prometheus::ClientMetric::Label>> labels;  // per printed label set
  };
  struct Series {
    std::string text;  // name{labels}
    size_t metric = 0;
  };

  prometheus::Registry& registry_;
  std::vector<EngineMetrics*> engines_;
  std::vector<Family> families_;
  std::vector<Series> series_;
  std::vector<Nanos> times_;
  std::vector<double> values_;  // scrape-major: values_[scrape * series_.size() + series]
};

}  // namespace llm
