#include "sim/alerts/alert_evaluation.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/alerts/recording_inline.h"

namespace llm {

bool AlertRuleTimeline::ever_fired() const {
  for (const auto& s : label_sets) {
    for (const auto& e : s.episodes) {
      if (e.fired_ns) return true;
    }
  }
  return false;
}

namespace {

// An API answer's document, checked for "status": "success".
nlohmann::json successful_answer(const std::string& json) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("the query answer is not JSON: ") + e.what());
  }
  if (!doc.is_object() || doc.value("status", "") != "success") {
    throw std::runtime_error("the query failed: " +
                             (doc.is_object() ? doc.value("errorType", std::string("?")) + ": " +
                                                    doc.value("error", std::string("?"))
                                              : std::string("?")));
  }
  return doc;
}

}  // namespace

size_t series_answer_count(const std::string& json) {
  const nlohmann::json doc = successful_answer(json);
  const auto data = doc.find("data");
  if (data == doc.end() || !data->is_array()) {
    throw std::runtime_error("unexpected series answer: no data array");
  }
  return data->size();
}

std::vector<RangeSeries> parse_query_range_answer(const std::string& json) {
  const nlohmann::json doc = successful_answer(json);
  try {
    const auto& data = doc.at("data");
    if (data.at("resultType") != "matrix") {
      throw std::runtime_error("expected a matrix, got " + data.at("resultType").dump());
    }
    std::vector<RangeSeries> out;
    for (const auto& r : data.at("result")) {
      RangeSeries s;
      for (const auto& [k, v] : r.at("metric").items()) s.labels[k] = v.get<std::string>();
      for (const auto& point : r.at("values")) {
        s.times_ms.push_back(std::llround(point.at(0).get<double>() * 1000));
      }
      out.push_back(std::move(s));
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("unexpected query answer: ") + e.what());
  }
}

namespace {

std::string labels_text(const PromLabels& labels) {
  std::string s = "{";
  for (const auto& [k, v] : labels) s += (s.size() > 1 ? "," : "") + k + "=\"" + v + "\"";
  return s + "}";
}

AlertRuleTimeline evaluate_rule(const PromRule& rule, const PromRuleGroup& group,
                                int64_t interval_ns, const std::map<std::string, PromRule>& records,
                                int64_t start_ns, int64_t end_ns, const RangeQueryFn& query) {
  AlertRuleTimeline t{rule.alert, group.name, interval_ns, rule.for_ns, rule.keep_firing_for_ns,
                      {}};
  std::string expr;
  try {
    expr = inline_recording_rules(rule.expr, records);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("alert " + rule.alert + " (line " + std::to_string(rule.line) +
                                "): " + e.what());
  }
  std::vector<int64_t> times;
  for (int64_t ts = start_ns; ts <= end_ns; ts += interval_ns) times.push_back(ts);
  std::map<PromLabels, std::vector<bool>> presence;
  const int64_t steps = static_cast<int64_t>(times.size());
  for (int64_t first = 0; first < steps; first += kMaxStepsPerQuery) {
    const int64_t last = std::min(steps, first + kMaxStepsPerQuery) - 1;
    for (const RangeSeries& s : query(expr, times[first], times[last], interval_ns)) {
      PromLabels labels = s.labels;
      labels.erase("__name__");
      for (const auto& [k, v] : rule.labels) labels[k] = v;
      labels["alertname"] = rule.alert;
      auto& present = presence[labels];
      if (present.empty()) present.assign(times.size(), false);
      for (int64_t ms : s.times_ms) {
        const int64_t offset_ns = ms * 1'000'000 - start_ns;
        if (offset_ns < 0 || offset_ns % interval_ns != 0 || offset_ns / interval_ns >= steps) {
          throw std::runtime_error("alert " + rule.alert + ": a sample at " + std::to_string(ms) +
                                   " ms is not an evaluation time of the range");
        }
        const size_t k = static_cast<size_t>(offset_ns / interval_ns);
        if (present[k]) {
          throw std::invalid_argument("alert " + rule.alert + ": two series with the labels " +
                                      labels_text(labels) +
                                      " after adding the alert's labels (Prometheus refuses "
                                      "this too)");
        }
        present[k] = true;
      }
    }
  }
  for (const auto& [labels, present] : presence) {
    t.label_sets.push_back(
        {labels, alert_episodes(times, present, rule.for_ns, rule.keep_firing_for_ns)});
  }
  return t;
}

}  // namespace

std::vector<AlertRuleTimeline> evaluate_alert_rules(const PromRuleFile& file,
                                                    int64_t default_interval_ns, int64_t start_ns,
                                                    int64_t end_ns, const RangeQueryFn& query) {
  if (default_interval_ns <= 0) throw std::invalid_argument("the evaluation interval must be > 0");
  const auto records = recording_rules(file);
  std::vector<AlertRuleTimeline> out;
  for (const PromRuleGroup& g : file.groups) {
    const int64_t interval = g.interval_ns > 0 ? g.interval_ns : default_interval_ns;
    for (const PromRule& r : g.rules) {
      if (r.alert.empty()) continue;
      out.push_back(evaluate_rule(r, g, interval, records, start_ns, end_ns, query));
    }
  }
  return out;
}

}  // namespace llm
