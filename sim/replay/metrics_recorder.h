// Records the Prometheus registry of a replay at each simulated scrape and writes the whole run as
// time series: OpenMetrics text for `promtool tsdb create-blocks-from openmetrics` (families once,
// each series' samples in time order, timestamps in seconds, `# EOF`) and promtool unit-test
// `input_series` (values in promtool's expanding notation, one per scrape interval).
// Gauges are what a scrape at that instant would read; counters and histograms are cumulative.
// Scrape targets (engine-down faults): a series can belong to a target (set_scrape_targets); a
// scrape at which its target is down has no sample of it (OpenMetrics: no line; promtool:
// `stale` at the first missed scrape, as Prometheus marks a failed target's series, then `_`),
// and a target that restarts (restart_target) has its counters, histograms and summaries start
// again from 0, as a restarted server's would.
// Thread-safety: none; the simulator thread.
#pragma once

#include <prometheus/client_metric.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/vllm_metrics.h"

namespace llm {

class MetricsRecorder {
 public:
  MetricsRecorder(prometheus::Registry& registry, std::vector<EngineMetrics*> engines);

  // Also records `registry`'s families, after those of the registries before it. Before the
  // first scrape only.
  void add_registry(prometheus::Registry& registry);
  // The scrape target of a series from its family's name and its labels (nullopt: none, the
  // series is always sampled). Before the first scrape only.
  using TargetOf = std::function<std::optional<size_t>(
      const std::string& family, const std::vector<prometheus::ClientMetric::Label>& labels)>;
  void set_scrape_targets(TargetOf target_of);

  // Flushes the engines' pending observations and stores every series' value at `time`; the
  // series of a target t with down[t] get no sample.
  void scrape(Nanos time, const std::vector<bool>& down = {});
  // Target `target` restarted now: its cumulative series count from 0 again.
  void restart_target(size_t target);
  size_t num_scrapes() const { return times_.size(); }
  const std::vector<Nanos>& times() const { return times_; }

  // Every recorded series of the sample name `name` (as exposed: vllm:num_requests_running,
  // vllm:num_preemptions_total, ...), each as its name{labels} text and one value per scrape
  // (NaN where its target was down).
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
    std::optional<size_t> target;  // its scrape target
    bool cumulative = false;       // a counter's, histogram's or summary's sample
  };

  // Every series' current value, in layout order (the layout is made on the first call).
  void read_values(std::vector<double>& out);
  bool missing(size_t scrape, size_t series) const;

  std::vector<prometheus::Registry*> registries_;
  std::vector<EngineMetrics*> engines_;
  std::vector<Family> families_;
  std::vector<Series> series_;
  std::vector<Nanos> times_;
  std::vector<double> values_;  // scrape-major: values_[scrape * series_.size() + series]
  bool laid_out_ = false;
  TargetOf target_of_;
  std::vector<std::vector<bool>> down_;  // per scrape: the targets down (empty: none)
  std::vector<double> baseline_;         // per series: its value at its target's last restart
  std::vector<double> scratch_;
};

}  // namespace llm
