#include "sim/replay/summary_figures.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace llm {
namespace {

struct DistributionName {
  const char* name;
  Distribution ReplaySummary::*member;
};

constexpr DistributionName kDistributions[] = {
    {"ttft", &ReplaySummary::ttft},     {"request_ttft", &ReplaySummary::request_ttft},
    {"queue", &ReplaySummary::queue},   {"prefill", &ReplaySummary::prefill},
    {"decode", &ReplaySummary::decode}, {"e2e", &ReplaySummary::e2e},
    {"itl", &ReplaySummary::itl},       {"tpot", &ReplaySummary::tpot},
};

// The statistics a Distribution holds, in the order of summary_figure_keys().
struct StatisticName {
  const char* name;
  double level;  // -1 for mean and max
  double Distribution::*member;
};

constexpr StatisticName kStatistics[] = {
    {"mean", -1, &Distribution::mean}, {"p50", 50, &Distribution::p50},
    {"p90", 90, &Distribution::p90},   {"p95", 95, &Distribution::p95},
    {"p99", 99, &Distribution::p99},   {"p99.9", 99.9, &Distribution::p999},
    {"max", -1, &Distribution::max}};

struct ScalarName {
  const char* name;
  double (*read)(const ReplaySummary&);
  bool lower_is_better;
};

double as_double(int64_t v) { return static_cast<double>(v); }

double read_attainment(const ReplaySummary& s) {
  if (!s.goodput.any() || !s.samples) return std::nan("");
  return attainment(*s.samples, s.goodput);
}

double read_goodput(const ReplaySummary& s) {
  if (!s.goodput.any() || !s.samples) return std::nan("");
  return s.duration_s > 0
             ? static_cast<double>(good_sequences(*s.samples, s.goodput)) / s.duration_s
             : 0.0;
}

constexpr ScalarName kScalars[] = {
    {"duration_s", [](const ReplaySummary& s) { return s.duration_s; }, true},
    {"input_tokens_per_s", [](const ReplaySummary& s) { return s.input_tokens_per_s; }, false},
    {"output_tokens_per_s", [](const ReplaySummary& s) { return s.output_tokens_per_s; }, false},
    {"preemptions", [](const ReplaySummary& s) { return as_double(s.preemptions); }, true},
    {"prefix_hit_rate", [](const ReplaySummary& s) { return s.prefix_hit_rate; }, false},
    {"peak_kv_usage", [](const ReplaySummary& s) { return s.peak_kv_usage; }, true},
    {"peak_waiting", [](const ReplaySummary& s) { return as_double(s.peak_waiting); }, true},
    {"steps", [](const ReplaySummary& s) { return as_double(s.steps); }, true},
    {"error_rate", [](const ReplaySummary& s) { return error_rate(s); }, true},
    {"attainment", read_attainment, false},
    {"goodput", read_goodput, false},
    {"unstable", [](const ReplaySummary& s) { return s.overload.unstable ? 1.0 : 0.0; }, true},
};

const Distribution* distribution_of(const ReplaySummary& s, const std::string& name) {
  for (const DistributionName& d : kDistributions) {
    if (name == d.name) return &(s.*(d.member));
  }
  return nullptr;
}

// The statistic's field of a Distribution, or null for a percentile it does not hold.
const StatisticName* fixed_statistic(const FigureName& f) {
  for (const StatisticName& st : kStatistics) {
    if (f.statistic == st.name) return &st;
  }
  return nullptr;
}

}  // namespace

std::string percentile_name(double level) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "p%g", level);
  return buf;
}

std::optional<FigureName> parse_figure_name(std::string_view key) {
  for (const ScalarName& s : kScalars) {
    if (key == s.name) return FigureName{};
  }
  for (const DistributionName& d : kDistributions) {
    const std::string_view name = d.name;
    if (key.size() <= name.size() + 1 || key.substr(0, name.size()) != name ||
        key[name.size()] != '_') {
      continue;
    }
    const std::string_view statistic = key.substr(name.size() + 1);
    FigureName f{std::string(name), std::string(statistic), -1};
    if (statistic == "mean" || statistic == "max") return f;
    if (statistic.size() < 2 || statistic[0] != 'p') continue;
    // pN: digits, optionally a point and more digits, 0 <= N <= 100.
    const std::string_view number = statistic.substr(1);
    const size_t point = number.find('.');
    const bool digits_ok = [&] {
      for (size_t i = 0; i < number.size(); ++i) {
        if (i == point) continue;
        if (number[i] < '0' || number[i] > '9') return false;
      }
      return point != 0 && point + 1 != number.size();
    }();
    if (!digits_ok) continue;
    double level = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), level);
    if (ec != std::errc() || end != number.data() + number.size() || level > 100) continue;
    f.level = level;
    f.statistic = percentile_name(level);
    if (f.statistic != statistic) continue;  // one spelling per figure: p50, not p050 or p50.0
    return f;
  }
  return std::nullopt;
}

std::optional<double> summary_figure(const ReplaySummary& summary, std::string_view key) {
  const std::optional<FigureName> f = parse_figure_name(key);
  if (!f) return std::nullopt;
  if (f->distribution.empty()) {
    for (const ScalarName& s : kScalars) {
      if (key == s.name) return s.read(summary);
    }
    return std::nullopt;
  }
  if (const StatisticName* st = fixed_statistic(*f)) {
    return (*distribution_of(summary, f->distribution)).*(st->member);
  }
  if (!summary.samples) return std::nan("");
  return latency_percentile(*summary.samples, f->distribution, f->level, false);
}

std::optional<double> slo_figure(const ReplaySummary& summary, std::string_view key) {
  const std::optional<FigureName> f = parse_figure_name(key);
  if (!f) return std::nullopt;
  if (f->distribution.empty() || !summary.samples || summary.samples->failed == 0) {
    return summary_figure(summary, key);
  }
  if (f->level < 0) return std::numeric_limits<double>::infinity();  // mean, max
  return latency_percentile(*summary.samples, f->distribution, f->level, true);
}

int64_t figure_samples(const ReplaySummary& summary, std::string_view key, bool count_failed) {
  const std::optional<FigureName> f = parse_figure_name(key);
  if (!f || f->distribution.empty()) return -1;
  if (summary.samples) return latency_count(*summary.samples, f->distribution, count_failed);
  return distribution_of(summary, f->distribution)->count;
}

const std::vector<std::string>& summary_figure_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const DistributionName& d : kDistributions) {
      for (const StatisticName& s : kStatistics) k.push_back(std::string(d.name) + "_" + s.name);
    }
    for (const ScalarName& s : kScalars) k.push_back(s.name);
    return k;
  }();
  return keys;
}

bool lower_is_better(std::string_view key) {
  for (const ScalarName& s : kScalars) {
    if (key == s.name) return s.lower_is_better;
  }
  return true;
}

}  // namespace llm
