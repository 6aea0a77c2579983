#include "sim/replay/summary_figures.h"

#include <cstdint>

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

struct StatisticName {
  const char* name;
  double Distribution::*member;
};

constexpr StatisticName kStatistics[] = {{"mean", &Distribution::mean},
                                         {"p50", &Distribution::p50},
                                         {"p90", &Distribution::p90},
                                         {"p99", &Distribution::p99},
                                         {"max", &Distribution::max}};

struct ScalarName {
  const char* name;
  double (*read)(const ReplaySummary&);
  bool lower_is_better;
};

double as_double(int64_t v) { return static_cast<double>(v); }

constexpr ScalarName kScalars[] = {
    {"duration_s", [](const ReplaySummary& s) { return s.duration_s; }, true},
    {"input_tokens_per_s", [](const ReplaySummary& s) { return s.input_tokens_per_s; }, false},
    {"output_tokens_per_s", [](const ReplaySummary& s) { return s.output_tokens_per_s; }, false},
    {"preemptions", [](const ReplaySummary& s) { return as_double(s.preemptions); }, true},
    {"prefix_hit_rate", [](const ReplaySummary& s) { return s.prefix_hit_rate; }, false},
    {"peak_kv_usage", [](const ReplaySummary& s) { return s.peak_kv_usage; }, true},
    {"peak_waiting", [](const ReplaySummary& s) { return as_double(s.peak_waiting); }, true},
    {"steps", [](const ReplaySummary& s) { return as_double(s.steps); }, true},
};

}  // namespace

std::optional<double> summary_figure(const ReplaySummary& summary, std::string_view key) {
  for (const DistributionName& d : kDistributions) {
    const std::string_view name = d.name;
    if (key.size() <= name.size() + 1 || key.substr(0, name.size()) != name ||
        key[name.size()] != '_') {
      continue;
    }
    const std::string_view statistic = key.substr(name.size() + 1);
    for (const StatisticName& s : kStatistics) {
      if (statistic == s.name) return summary.*(d.member).*(s.member);
    }
  }
  for (const ScalarName& s : kScalars) {
    if (key == s.name) return s.read(summary);
  }
  return std::nullopt;
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
