// What recording vLLM's Prometheus metrics costs a replay: the Azure conversation trace with the
// metrics off (BM_ReplayAzureMetricsOff) and on (BM_ReplayAzureMetricsOn: every engine event
// observed into the metric families, a scrape recorded every simulated 5 s, as --promtool-series
// does, without writing the file). Goal: "on" at most 10% slower than "off".
// Also BM_MetricsOut24h: a simulated day (the trace stretched 24x) on two engines, with the
// OpenMetrics file written to /dev/null-like temporary storage. Goal: under 5 s.
#include <benchmark/benchmark.h>
#include <prometheus/registry.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "bench/bench_util.h"
#include "core/observer_tee.h"
#include "core/vllm_metrics.h"
#include "sim/cli/replay_command.h"
#include "sim/replay/metrics_recorder.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_report.h"
#include "sim/trace/trace_io.h"

namespace {

struct Run {
  double sim_s = 0;
  size_t scrapes = 0;
};

// One replay with a report per engine and, when `metrics`, the metric families and scrapes.
Run replay(const llm::Trace& trace, const llm::ReplayConfig& config, bool metrics,
           std::ostream* openmetrics) {
  prometheus::Registry registry;
  llm::VllmMetricFamilies families(registry, config.scheduler.max_model_len);
  llm::ReplayReport report(nullptr);
  std::vector<std::unique_ptr<llm::EngineMetrics>> engine_metrics;
  std::vector<std::unique_ptr<llm::ObserverTee>> tees;
  std::vector<llm::EngineObserver*> observers;
  std::vector<llm::EngineMetrics*> metric_ptrs;
  for (int i = 0; i < config.data_parallel_size; ++i) {
    tees.push_back(std::make_unique<llm::ObserverTee>());
    tees.back()->add(&report);
    if (metrics) {
      engine_metrics.push_back(
          std::make_unique<llm::EngineMetrics>(families, "bench", i, llm::CacheConfigInfo{}));
      tees.back()->add(engine_metrics.back().get());
      metric_ptrs.push_back(engine_metrics.back().get());
    }
    observers.push_back(tees.back().get());
  }
  llm::MetricsRecorder recorder(registry, metric_ptrs);
  llm::ReplayHooks hooks;
  if (metrics) {
    hooks.scrape_interval = 5'000'000'000;
    hooks.on_scrape = [&recorder](llm::Nanos t) { recorder.scrape(t); };
  }
  const llm::ReplayTotals totals = llm::run_replay(trace, config, observers, hooks);
  benchmark::DoNotOptimize(
      report.finish(totals.end_time, totals.sum(), static_cast<int64_t>(trace.requests.size())));
  if (openmetrics) recorder.write_openmetrics(*openmetrics, 1'767'225'600'000'000'000);
  return {llm::nanos_to_seconds(totals.end_time), recorder.num_scrapes()};
}

void replay_azure(benchmark::State& state, bool metrics) {
  const auto path = llm::bench::find_shared_file("traces/AzureLLMInferenceTrace_conv.csv");
  if (!path) {
    state.SkipWithError("AzureLLMInferenceTrace_conv.csv not found (set LLM_SHARED_DIR)");
    return;
  }
  llm::ReplayOptions options;
  options.trace_path = path->string();
  const llm::ReplayConfig config = llm::make_replay_config(options);
  const llm::Trace trace = llm::read_trace_file(path->string());
  Run run;
  for (auto _ : state) run = replay(trace, config, metrics, nullptr);
  state.counters["scrapes"] = static_cast<double>(run.scrapes);
}

void BM_ReplayAzureMetricsOff(benchmark::State& state) { replay_azure(state, false); }
void BM_ReplayAzureMetricsOn(benchmark::State& state) { replay_azure(state, true); }
BENCHMARK(BM_ReplayAzureMetricsOff)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ReplayAzureMetricsOn)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MetricsOut24h(benchmark::State& state) {
  const auto path = llm::bench::find_shared_file("traces/AzureLLMInferenceTrace_conv.csv");
  if (!path) {
    state.SkipWithError("AzureLLMInferenceTrace_conv.csv not found (set LLM_SHARED_DIR)");
    return;
  }
  llm::ReplayOptions options;
  options.trace_path = path->string();
  options.data_parallel_size = 2;
  const llm::ReplayConfig config = llm::make_replay_config(options);
  llm::Trace trace = llm::read_trace_file(path->string());
  llm::scale_arrivals(trace, 1.0 / 24);  // about an hour of traffic over a day
  const auto file = std::filesystem::temp_directory_path() / "llm_bench_metrics_24h.om";
  Run run;
  for (auto _ : state) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    run = replay(trace, config, true, &out);
  }
  state.counters["sim_hours"] = run.sim_s / 3600;
  state.counters["scrapes"] = static_cast<double>(run.scrapes);
  state.counters["file_MiB"] = static_cast<double>(std::filesystem::file_size(file)) / (1 << 20);
  std::filesystem::remove(file);
}
BENCHMARK(BM_MetricsOut24h)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
