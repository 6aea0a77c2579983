#include "sim/replay/slo.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sim/replay/summary_figures.h"

namespace llm {
namespace {

std::string accepted_keys() {
  std::string list;
  for (const std::string& key : summary_figure_keys()) {
    if (!list.empty()) list += ", ";
    list += key;
  }
  return list;
}

// A finite non-negative number filling all of `text`, or NaN.
double parse_number(std::string_view text) {
  double value = NAN;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || !std::isfinite(value) || value < 0) {
    return NAN;
  }
  return value;
}

struct Unit {
  const char* suffix;
  double seconds;
};
// Longest suffix first, so that "ms" is not read as "m" + "s".
constexpr Unit kUnits[] = {{"ms", 1e-3}, {"us", 1e-6}, {"s", 1.0}};

double parse_target(const std::string& key, std::string_view value, const std::string& item) {
  if (value.empty()) throw std::invalid_argument(item + ": missing value after '='");
  if (!is_latency_figure(key)) {
    const double v = parse_number(value);
    if (std::isnan(v)) {
      throw std::invalid_argument(item + ": " + key +
                                  " takes a plain non-negative number (no unit)");
    }
    return v;
  }
  for (const Unit& unit : kUnits) {
    const std::string_view suffix = unit.suffix;
    if (value.size() > suffix.size() && value.substr(value.size() - suffix.size()) == suffix) {
      const double v = parse_number(value.substr(0, value.size() - suffix.size()));
      if (std::isnan(v)) break;
      return v * unit.seconds;
    }
  }
  throw std::invalid_argument(item + ": " + key +
                              " is a latency: expected a non-negative number with a unit s, ms "
                              "or us, such as " +
                              key + "=2s or " + key + "=100ms");
}

}  // namespace

bool is_latency_figure(std::string_view key) {
  if (key == "duration_s") return true;
  for (std::string_view statistic : {"_mean", "_p50", "_p90", "_p99", "_max"}) {
    if (key.size() > statistic.size() && key.substr(key.size() - statistic.size()) == statistic) {
      return summary_figure(ReplaySummary{}, key).has_value();
    }
  }
  return false;
}

std::vector<SloTarget> parse_slo(std::string_view text) {
  std::vector<SloTarget> targets;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string item(text.substr(start, end - start));
    start = end + 1;
    if (item.empty()) {
      throw std::invalid_argument(text.empty() ? "expected KEY=VALUE,... such as ttft_p99=2s"
                                               : "empty item in '" + std::string(text) + "'");
    }
    const size_t eq = item.find('=');
    if (eq == std::string::npos) {
      throw std::invalid_argument(item + ": expected KEY=VALUE, such as ttft_p99=2s");
    }
    SloTarget t;
    t.key = item.substr(0, eq);
    t.text = item.substr(eq + 1);
    if (!summary_figure(ReplaySummary{}, t.key)) {
      throw std::invalid_argument(item + ": unknown figure '" + t.key +
                                  "'; accepted: " + accepted_keys());
    }
    for (const SloTarget& earlier : targets) {
      if (earlier.key == t.key) throw std::invalid_argument(item + ": " + t.key + " given twice");
    }
    t.target = parse_target(t.key, t.text, item);
    targets.push_back(std::move(t));
  }
  return targets;
}

std::vector<SloResult> check_slo(const ReplaySummary& summary,
                                 const std::vector<SloTarget>& targets) {
  std::vector<SloResult> results;
  for (const SloTarget& t : targets) {
    SloResult r;
    r.key = t.key;
    r.target = t.target;
    r.value = summary_figure(summary, t.key).value_or(NAN);
    if (std::isfinite(r.value)) {
      r.met = lower_is_better(t.key) ? r.value <= t.target : r.value >= t.target;
    }
    results.push_back(r);
  }
  return results;
}

bool all_met(const std::vector<SloResult>& results) {
  for (const SloResult& r : results) {
    if (!r.met) return false;
  }
  return true;
}

std::string format_figure(std::string_view key, double value) {
  char buf[64];
  if (!std::isfinite(value)) return "n/a";
  if (is_latency_figure(key)) {
    if (value < 1.0) {
      std::snprintf(buf, sizeof buf, "%.4g ms", value * 1e3);
    } else {
      std::snprintf(buf, sizeof buf, "%.4g s", value);
    }
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", value);
  }
  return buf;
}

std::string format_slo_results(const std::vector<SloResult>& results) {
  size_t width = 0;
  for (const SloResult& r : results) width = std::max(width, r.key.size());
  std::string text;
  for (const SloResult& r : results) {
    text += "slo " + r.key + std::string(width - r.key.size(), ' ') + "  " +
            format_figure(r.key, r.value) + (lower_is_better(r.key) ? " <= " : " >= ") +
            format_figure(r.key, r.target) + "  " + (r.met ? "met" : "MISSED") + "\n";
  }
  return text;
}

}  // namespace llm
