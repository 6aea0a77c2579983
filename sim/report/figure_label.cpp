#include "sim/report/figure_label.h"

namespace llm {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string figure_axis_label(std::string_view key) {
  const std::string name(key);
  // The latency distributions (summary_figures.h's <distribution>_<statistic>), in seconds.
  for (std::string_view d :
       {"ttft_", "request_ttft_", "queue_", "prefill_", "decode_", "e2e_", "itl_", "tpot_"}) {
    if (starts_with(key, d)) return name + " (s)";
  }
  if (ends_with(key, "_per_s")) return name + " (tokens/s)";
  if (key == "duration_s") return name + " (s)";
  if (key == "peak_kv_usage" || key == "prefix_hit_rate") return name + " (fraction)";
  return name;
}

}  // namespace llm
