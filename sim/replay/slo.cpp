#include "sim/replay/slo.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sim/replay/summary_figures.h"

namespace llm {
namespace {

constexpr const char* kPerRequestKeys[] = {"ttft", "tpot", "e2e"};

bool is_per_request_key(std::string_view key) {
  for (const char* k : kPerRequestKeys) {
    if (key == k) return true;
  }
  return false;
}

bool needs_per_request_targets(std::string_view key) {
  return key == "attainment" || key == "goodput";
}

std::string accepted_keys() {
  std::string list;
  for (const std::string& key : summary_figure_keys()) {
    if (!list.empty()) list += ", ";
    list += key;
  }
  return list +
         "; any percentile pN of a distribution (ttft_p75, e2e_p99.99); per-request "
         "targets ttft, tpot, e2e (with attainment or goodput)";
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

double parse_target(const std::string& key, bool latency, std::string_view value,
                    const std::string& item) {
  if (value.empty()) throw std::invalid_argument(item + ": missing value after '='");
  if (!latency) {
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

// The key, the operator ("=", "<=" or ">=") and the value of an item.
struct Item {
  std::string key, op, value;
};

Item split_item(const std::string& item) {
  const size_t eq = item.find('=');
  if (eq == std::string::npos) {
    throw std::invalid_argument(item + ": expected KEY=VALUE, such as ttft_p99=2s");
  }
  Item it;
  size_t key_end = eq;
  if (eq > 0 && (item[eq - 1] == '<' || item[eq - 1] == '>')) key_end = eq - 1;
  it.key = item.substr(0, key_end);
  it.op = item.substr(key_end, eq + 1 - key_end);
  it.value = item.substr(eq + 1);
  return it;
}

std::string percent_text(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g%%", share * 100);
  return buf;
}

}  // namespace

bool is_latency_figure(std::string_view key) {
  if (key == "duration_s") return true;
  const std::optional<FigureName> f = parse_figure_name(key);
  return f && !f->distribution.empty();
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
    const Item it = split_item(item);
    SloTarget t;
    t.key = it.key;
    t.text = it.value;
    t.per_request = is_per_request_key(t.key);
    if (!t.per_request && !parse_figure_name(t.key)) {
      throw std::invalid_argument(item + ": unknown figure '" + t.key +
                                  "'; accepted: " + accepted_keys());
    }
    if (it.op != "=") {
      const bool lower = t.per_request || lower_is_better(t.key);
      if (t.per_request || (it.op == ">=") == lower) {
        throw std::invalid_argument(item + ": " + t.key + " is better " +
                                    (lower ? "lower: write " + t.key + "<=" + it.value
                                           : "higher: write " + t.key + ">=" + it.value) +
                                    (t.per_request
                                         ? " (a per-request target: " + t.key + "=" + it.value + ")"
                                         : " (or " + t.key + "=" + it.value + ")"));
      }
    }
    for (const SloTarget& earlier : targets) {
      if (earlier.key == t.key) throw std::invalid_argument(item + ": " + t.key + " given twice");
    }
    t.target = parse_target(t.key, t.per_request || is_latency_figure(t.key), t.text, item);
    if (t.key == "attainment" && t.target > 1) {
      throw std::invalid_argument(item + ": attainment is a share of the requests, 0 to 1 " +
                                  "(0.99 for 99%)");
    }
    targets.push_back(std::move(t));
  }
  bool per_request = false, needs = false;
  std::string needing;
  for (const SloTarget& t : targets) {
    per_request = per_request || t.per_request;
    if (needs_per_request_targets(t.key)) {
      needs = true;
      needing = t.key;
    }
  }
  if (needs && !per_request) {
    throw std::invalid_argument(needing +
                                ": counts the requests that meet per-request targets; give them "
                                "too, such as ttft=2s,tpot=100ms," +
                                needing + (needing == "attainment" ? ">=0.99" : ">=10"));
  }
  if (per_request && !needs) {
    for (const SloTarget& t : targets) {
      if (!t.per_request) continue;
      throw std::invalid_argument(t.key + "=" + t.text +
                                  ": a per-request target, for attainment or goodput: add "
                                  "attainment>=0.99 (the share of requests that must meet it), "
                                  "or write a percentile such as " +
                                  t.key + "_p99=" + t.text);
    }
  }
  return targets;
}

GoodputTargets goodput_targets(const std::vector<SloTarget>& targets) {
  GoodputTargets g;
  for (const SloTarget& t : targets) {
    if (!t.per_request) continue;
    if (t.key == "ttft") g.ttft_s = t.target;
    if (t.key == "tpot") g.tpot_s = t.target;
    if (t.key == "e2e") g.e2e_s = t.target;
  }
  return g;
}

std::vector<SloResult> check_slo(const ReplaySummary& summary,
                                 const std::vector<SloTarget>& targets) {
  ReplaySummary with_targets;
  const ReplaySummary* s = &summary;
  const GoodputTargets goodput = goodput_targets(targets);
  if (goodput.any()) {  // attainment and goodput against these targets, whatever the summary's
    with_targets = summary;
    with_targets.goodput = goodput;
    s = &with_targets;
  }
  std::vector<SloResult> results;
  for (const SloTarget& t : targets) {
    if (t.per_request) continue;
    SloResult r;
    r.key = t.key;
    r.target = t.target;
    r.value = slo_figure(*s, t.key).value_or(NAN);
    r.samples = figure_samples(*s, t.key, true);
    if (r.samples >= 0) r.failed = r.samples - figure_samples(*s, t.key, false);
    if (needs_per_request_targets(t.key) && s->samples) {
      r.detail = describe_goodput(goodput) +
                 " per request: " + std::to_string(good_sequences(*s->samples, goodput)) + " of " +
                 std::to_string(s->samples->outcomes.size()) + " sequences good";
    }
    if (!std::isnan(r.value)) {
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
  if (std::isinf(value)) return "inf";
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
            format_figure(r.key, r.target) + "  " + (r.met ? "met" : "MISSED");
    if (r.failed > 0) {
      const bool gaps = r.key.rfind("itl_", 0) == 0;
      text += "  (over " + std::to_string(r.samples) + (gaps ? " gaps; " : " sequences; ") +
              std::to_string(r.failed) +
              (gaps ? " of refused or failed sequences" : " refused or failed") +
              " count as missed: " +
              percent_text(static_cast<double>(r.failed) / static_cast<double>(r.samples)) + ")";
    }
    if (!r.detail.empty()) text += "  (" + r.detail + ")";
    text += "\n";
  }
  return text;
}

std::string describe_slo(const std::vector<SloTarget>& targets) {
  std::string text;
  for (const SloTarget& t : targets) {
    if (t.per_request) continue;
    text += (text.empty() ? "" : ", ") + t.key + (lower_is_better(t.key) ? " <= " : " >= ") +
            format_figure(t.key, t.target);
  }
  const GoodputTargets goodput = goodput_targets(targets);
  if (goodput.any()) text += " (per request: " + describe_goodput(goodput) + ")";
  return text;
}

}  // namespace llm
