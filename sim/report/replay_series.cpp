#include "sim/report/replay_series.h"

#include <stdexcept>
#include <string>

namespace llm {
namespace {

// The engine index of a series' name{labels} text (its engine="i" label), or -1.
int engine_of(const std::string& text) {
  const std::string key = "engine=\"";
  const size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  size_t i = at + key.size();
  int engine = 0;
  bool digits = false;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    engine = engine * 10 + (text[i] - '0');
    digits = true;
  }
  return digits ? engine : -1;
}

}  // namespace

ReplayTimeSeries replay_time_series(const MetricsRecorder& recorder) {
  ReplayTimeSeries out;
  for (Nanos t : recorder.times()) out.time_s.push_back(nanos_to_seconds(t));
  struct Field {
    const char* name;
    std::vector<double> EngineSeries::*member;
  };
  for (const Field& f : {Field{"vllm:num_requests_running", &EngineSeries::running},
                         Field{"vllm:num_requests_waiting", &EngineSeries::waiting},
                         Field{"vllm:kv_cache_usage_perc", &EngineSeries::kv_usage},
                         Field{"vllm:num_preemptions_total", &EngineSeries::preemptions},
                         Field{"vllm:prompt_tokens_total", &EngineSeries::prompt_tokens},
                         Field{"vllm:generation_tokens_total", &EngineSeries::generation_tokens}}) {
    const auto found = recorder.series_named(f.name);
    if (found.empty()) throw std::logic_error(std::string("no recorded series ") + f.name);
    for (const auto& s : found) {
      const int engine = engine_of(s.text);
      if (engine < 0) throw std::logic_error("series without an engine label: " + s.text);
      if (out.engines.size() <= static_cast<size_t>(engine)) out.engines.resize(engine + 1);
      (out.engines[engine].*f.member) = s.values;
    }
  }
  return out;
}

LatencyCdfs latency_cdfs(const ReplayReport& report, size_t max_points) {
  return {cdf_of_sorted(report.ttft_samples(), max_points),
          cdf_of_sorted(report.tpot_samples(), max_points),
          cdf_of_sketch(report.itl_sketch(), max_points),
          cdf_of_sorted(report.e2e_samples(), max_points)};
}

}  // namespace llm
