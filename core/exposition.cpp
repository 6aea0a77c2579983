#include "core/exposition.h"

#include <algorithm>

#include "core/python_float.h"

namespace llm {
namespace {

void append_label_value(std::string& out, const std::string& value) {
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
}

// name{l1="v1",...,extra="x"}; labels are printed sorted by name, as prometheus_client does.
std::string series_text(const std::string& name,
                        std::vector<prometheus::ClientMetric::Label> labels,
                        const char* extra_name = nullptr, const std::string& extra_value = {}) {
  if (extra_name) labels.push_back({extra_name, extra_value});
  std::sort(labels.begin(), labels.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  std::string s = name;
  if (labels.empty()) return s;
  s += '{';
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i) s += ',';
    s += labels[i].name;
    s += "=\"";
    append_label_value(s, labels[i].value);
    s += '"';
  }
  s += '}';
  return s;
}

}  // namespace

const char* type_name(prometheus::MetricType type) {
  switch (type) {
    case prometheus::MetricType::Counter:
      return "counter";
    case prometheus::MetricType::Gauge:
      return "gauge";
    case prometheus::MetricType::Histogram:
      return "histogram";
    case prometheus::MetricType::Summary:
      return "summary";
    case prometheus::MetricType::Untyped:
      break;
  }
  return "untyped";
}

std::string exposition_name(const prometheus::MetricFamily& f) {
  return f.type == prometheus::MetricType::Counter ? f.name + "_total" : f.name;
}

std::vector<size_t> sorted_metric_order(const prometheus::MetricFamily& f) {
  std::vector<std::vector<prometheus::ClientMetric::Label>> keys;
  for (const auto& m : f.metric) {
    keys.push_back(m.label);
    std::sort(keys.back().begin(), keys.back().end());
  }
  std::vector<size_t> order(f.metric.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&keys](size_t a, size_t b) { return keys[a] < keys[b]; });
  return order;
}

void append_sample_values(const prometheus::MetricFamily& f, const prometheus::ClientMetric& m,
                          std::vector<double>& out) {
  switch (f.type) {
    case prometheus::MetricType::Counter:
      out.push_back(m.counter.value);
      break;
    case prometheus::MetricType::Gauge:
      out.push_back(m.gauge.value);
      break;
    case prometheus::MetricType::Histogram:
      for (const auto& b : m.histogram.bucket)
        out.push_back(static_cast<double>(b.cumulative_count));
      out.push_back(static_cast<double>(m.histogram.sample_count));
      out.push_back(m.histogram.sample_sum);
      break;
    case prometheus::MetricType::Summary:
      for (const auto& q : m.summary.quantile) out.push_back(q.value);
      out.push_back(static_cast<double>(m.summary.sample_count));
      out.push_back(m.summary.sample_sum);
      break;
    default:
      out.push_back(m.untyped.value);
      break;
  }
}

void collect_samples(const prometheus::MetricFamily& f, std::vector<SampleRef>& out) {
  const std::vector<size_t> order = sorted_metric_order(f);
  std::vector<double> values;
  for (size_t k = 0; k < order.size(); ++k) {
    const prometheus::ClientMetric& m = f.metric[order[k]];
    std::vector<std::string> names;
    switch (f.type) {
      case prometheus::MetricType::Counter:
        names.push_back(series_text(f.name + "_total", m.label));
        break;
      case prometheus::MetricType::Histogram:
        for (const auto& b : m.histogram.bucket) {
          names.push_back(
              series_text(f.name + "_bucket", m.label, "le", python_float(b.upper_bound)));
        }
        names.push_back(series_text(f.name + "_count", m.label));
        names.push_back(series_text(f.name + "_sum", m.label));
        break;
      case prometheus::MetricType::Summary:
        for (const auto& q : m.summary.quantile) {
          names.push_back(series_text(f.name, m.label, "quantile", python_float(q.quantile)));
        }
        names.push_back(series_text(f.name + "_count", m.label));
        names.push_back(series_text(f.name + "_sum", m.label));
        break;
      default:
        names.push_back(series_text(f.name, m.label));
        break;
    }
    values.clear();
    append_sample_values(f, m, values);
    for (size_t i = 0; i < names.size(); ++i) out.push_back({std::move(names[i]), values[i], k});
  }
}

std::string serialize_exposition(const std::vector<prometheus::MetricFamily>& families) {
  std::string text;
  std::vector<SampleRef> samples;
  for (const auto& f : families) {
    const std::string name = exposition_name(f);
    text += "# HELP " + name + " " + f.help + "\n";
    text += "# TYPE " + name + " " + type_name(f.type) + "\n";
    samples.clear();
    collect_samples(f, samples);
    for (const SampleRef& s : samples) {
      text += s.series;
      text += ' ';
      append_python_float(text, s.value);
      text += '\n';
    }
  }
  return text;
}

}  // namespace llm
