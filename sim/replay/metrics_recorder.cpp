#include "sim/replay/metrics_recorder.h"

#include <charconv>
#include <cmath>
#include <ostream>
#include <stdexcept>

#include "core/exposition.h"
#include "core/python_float.h"
#include "sim/time_text.h"

namespace llm {
namespace {

// Buffered writing: text is built in a reusable string and handed to the stream in large pieces.
class Buffered {
 public:
  explicit Buffered(std::ostream& out) : out_(out) { buf_.reserve(kChunk + 4096); }
  ~Buffered() { flush(); }
  std::string& text() { return buf_; }
  void maybe_flush() {
    if (buf_.size() >= kChunk) flush();
  }
  void flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr size_t kChunk = 1 << 20;
  std::ostream& out_;
  std::string buf_;
};

// Integral values below one million print as plain integers (OpenMetrics and promtool read them
// as floats) without going through the general formatter.
void append_value(std::string& out, double v) {
  if (v >= 0 && v < 1e6 && v == std::floor(v)) {
    char buf[16];
    char* end = std::to_chars(buf, buf + sizeof buf, static_cast<int64_t>(v)).ptr;
    out.append(buf, static_cast<size_t>(end - buf));
    return;
  }
  append_python_float(out, v);
}

}  // namespace

MetricsRecorder::MetricsRecorder(prometheus::Registry& registry,
                                 std::vector<EngineMetrics*> engines)
    : registry_(registry), engines_(std::move(engines)) {}

void MetricsRecorder::scrape(Nanos time) {
  for (EngineMetrics* e : engines_) e->flush();
  const std::vector<prometheus::MetricFamily> families = registry_.Collect();
  if (times_.empty()) {
    // The first scrape fixes the layout: families, label sets and the text of every series.
    std::vector<SampleRef> samples;
    for (const auto& f : families) {
      samples.clear();
      collect_samples(f, samples);
      Family layout{
          f.name, f.help, type_name(f.type), series_.size(), samples.size(), sorted_metric_order(f),
          {}};
      for (size_t k : layout.order) layout.labels.push_back(f.metric[k].label);
      families_.push_back(std::move(layout));
      for (const SampleRef& s : samples) series_.push_back({s.series, s.metric});
    }
  }
  // Later scrapes only read values, checking that the same label sets come in the same order.
  const size_t before = values_.size();
  if (families.size() != families_.size()) throw std::logic_error("metric families changed");
  for (size_t fi = 0; fi < families.size(); ++fi) {
    const Family& layout = families_[fi];
    const prometheus::MetricFamily& f = families[fi];
    if (f.name != layout.name || f.metric.size() != layout.order.size()) {
      throw std::logic_error("metric family changed between scrapes: " + f.name);
    }
    for (size_t k = 0; k < layout.order.size(); ++k) {
      const prometheus::ClientMetric& m = f.metric[layout.order[k]];
      if (m.label != layout.labels[k]) throw std::logic_error("metric labels moved: " + f.name);
      append_sample_values(f, m, values_);
    }
  }
  if (values_.size() - before != series_.size()) {
    throw std::logic_error("metric series changed between scrapes");
  }
  times_.push_back(time);
}

std::vector<MetricsRecorder::RecordedSeries> MetricsRecorder::series_named(
    std::string_view name) const {
  std::vector<RecordedSeries> found;
  const size_t width = series_.size();
  for (size_t i = 0; i < width; ++i) {
    const std::string& text = series_[i].text;
    if (text.size() < name.size() || text.compare(0, name.size(), name) != 0) continue;
    if (text.size() > name.size() && text[name.size()] != '{') continue;
    RecordedSeries s{text, {}};
    s.values.reserve(times_.size());
    for (size_t k = 0; k < times_.size(); ++k) s.values.push_back(values_[k * width + i]);
    found.push_back(std::move(s));
  }
  return found;
}

void MetricsRecorder::write_openmetrics(std::ostream& out, int64_t start_unix_ns) const {
  std::vector<std::string> stamps;
  stamps.reserve(times_.size());
  for (Nanos t : times_) stamps.push_back(" " + unix_seconds_text(start_unix_ns + t) + "\n");
  const size_t width = series_.size();
  Buffered w(out);
  for (const Family& f : families_) {
    std::string& b = w.text();
    b += "# TYPE " + f.name + " " + f.type + "\n";
    b += "# HELP " + f.name + " " + f.help + "\n";
    // One metric (label set) at a time; for each scrape, all of its samples (a histogram's
    // buckets, count and sum form one point).
    size_t s = f.first_sample;
    const size_t end = f.first_sample + f.num_samples;
    while (s < end) {
      size_t metric_end = s;
      while (metric_end < end && series_[metric_end].metric == series_[s].metric) ++metric_end;
      for (size_t k = 0; k < times_.size(); ++k) {
        for (size_t i = s; i < metric_end; ++i) {
          std::string& t = w.text();
          t += series_[i].text;
          t += ' ';
          append_value(t, values_[k * width + i]);
          t += stamps[k];
        }
        w.maybe_flush();
      }
      s = metric_end;
    }
  }
  w.text() += "# EOF\n";
}

void MetricsRecorder::write_promtool_series(std::ostream& out, Nanos interval) const {
  const size_t width = series_.size();
  Buffered w(out);
  w.text() += "interval: " + duration_text(interval) + "\ninput_series:\n";
  std::string value_text;
  std::string next_text;
  for (size_t i = 0; i < width; ++i) {
    std::string& b = w.text();
    b += "  - series: '" + series_[i].text + "'\n    values: '";
    // Runs of equal values collapse to "vxN" (v repeated N more times).
    size_t k = 0;
    bool first = true;
    while (k < times_.size()) {
      value_text.clear();
      append_value(value_text, values_[k * width + i]);
      size_t run = 1;
      while (k + run < times_.size() && values_[(k + run) * width + i] == values_[k * width + i]) {
        ++run;
      }
      if (!first) b += ' ';
      first = false;
      b += value_text;
      if (run > 1) b += "x" + std::to_string(run - 1);
      k += run;
    }
    b += "'\n";
    w.maybe_flush();
  }
}

}  // namespace llm
