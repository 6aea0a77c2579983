// Whole-simulation benchmarks: what `llmsim replay` costs on one core.
//
// BM_ReplayAzureConv   the Azure 2023 conversation trace (../shared/traces, 19,366 requests)
//                      through llmsim's defaults (H200 + Llama-3.1-8B). Goal: under 1 s wall.
// BM_ReplaySynthetic1M 1,000,000 ShareGPT-like requests (sharegpt_like, Poisson arrivals at
//                      50 req/s), writing requests.jsonl to a temporary file as
//                      llmsim does. Goal: under 60 s wall and under 1 GiB peak RSS.
//
// Both time everything the CLI does apart from argument parsing: configuration, reading or
// generating the trace, the replay and the report (summary figures; the per-request file for the
// synthetic run). The phases are also reported separately as counters.
// Run one of them with --benchmark_filter=BM_ReplayAzureConv (or BM_ReplaySynthetic1M).

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>

#include "bench/bench_util.h"
#include "core/pending_file.h"
#include "sim/cli/replay_command.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_report.h"
#include "sim/trace/synthetic.h"
#include "sim/trace/trace_io.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

llm::ReplayConfig default_config(const std::string& trace_path) {
  llm::ReplayOptions options;  // H200 + Llama-3.1-8B, vLLM's defaults for that GPU
  options.trace_path = trace_path;
  return llm::make_replay_config(options);
}

void set_avg(benchmark::State& state, const char* name, double value) {
  state.counters[name] = benchmark::Counter(value, benchmark::Counter::kAvgIterations);
}

void BM_ReplayAzureConv(benchmark::State& state) {
  const auto path = llm::bench::find_shared_file("traces/AzureLLMInferenceTrace_conv.csv");
  if (!path) {
    state.SkipWithError(
        "AzureLLMInferenceTrace_conv.csv not found: set LLM_SHARED_DIR to the shared/ folder "
        "(tried $LLM_SHARED_DIR/traces, ../shared/traces and the project's ../shared/traces)");
    return;
  }
  double parse_s = 0, replay_s = 0, sim_s = 0, speedup = 0, requests = 0, steps = 0;
  int64_t peak_waiting = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const llm::ReplayConfig config = default_config(path->string());
    const llm::Trace trace = llm::read_trace_file(path->string());
    const double t_parse = llm::bench::seconds_since(t0);

    const auto t1 = Clock::now();
    llm::ReplayReport report(nullptr);
    const llm::ReplayTotals totals = llm::run_replay(trace, config, report);
    const llm::ReplaySummary summary =
        report.finish(totals.end_time, totals.sum(), static_cast<int64_t>(trace.requests.size()));
    benchmark::DoNotOptimize(summary.duration_s);
    const double t_replay = llm::bench::seconds_since(t1);
    const double wall = llm::bench::seconds_since(t0);

    parse_s += t_parse;
    replay_s += t_replay;
    sim_s += llm::nanos_to_seconds(totals.end_time);
    speedup += llm::nanos_to_seconds(totals.end_time) / wall;
    requests += static_cast<double>(trace.requests.size());
    steps += static_cast<double>(totals.sum().num_steps);
    peak_waiting = std::max(peak_waiting, totals.sum().peak_waiting);
  }
  set_avg(state, "requests", requests);
  set_avg(state, "steps", steps);
  set_avg(state, "sim_s", sim_s);
  set_avg(state, "speedup", speedup);  // simulated seconds per wall second
  set_avg(state, "parse_s", parse_s);
  set_avg(state, "replay_s", replay_s);
  state.counters["peak_waiting"] = static_cast<double>(peak_waiting);
}

BENCHMARK(BM_ReplayAzureConv)->Unit(benchmark::kMillisecond)->UseRealTime();

// The synthetic load: 50 req/s of ShareGPT-like chats (prompt ~350, output ~320 tokens on
// average, i.e. ~16k output tokens/s). On H200 + Llama-3.1-8B the simulated engine saturates near
// 67 req/s (~21.4k output tokens/s, measured with 50k-request runs at 80-150 req/s, where the
// waiting queue grows without bound); 50 req/s is ~75% of that: a large decode batch, the engine
// almost always busy, and a waiting queue that stays short (peak_waiting is reported to show it).
constexpr double kSyntheticRate = 50.0;
constexpr int64_t kSyntheticRequests = 1'000'000;

void BM_ReplaySynthetic1M(benchmark::State& state) {
  const bool hwm_reset = llm::bench::reset_peak_rss();
  const fs::path dir = fs::temp_directory_path() / ("llm_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path out_path = dir / "requests.jsonl";

  double gen_s = 0, replay_s = 0, sim_s = 0, speedup = 0, steps = 0, bytes = 0;
  int64_t peak_waiting = 0, preemptions = 0;
  for (auto _ : state) {
    const auto t0 = Clock::now();
    const llm::ReplayConfig config = default_config("synthetic");
    const llm::Trace trace =
        llm::generate_synthetic(llm::sharegpt_like(kSyntheticRequests, kSyntheticRate, 1));
    const double t_gen = llm::bench::seconds_since(t0);

    const auto t1 = Clock::now();
    llm::ReplaySummary summary;
    llm::ReplayTotals totals;
    try {
      llm::PendingFile out(out_path);  // as llmsim writes it: a .partial file, then a rename
      llm::ReplayReport report(&out.stream());
      totals = llm::run_replay(trace, config, report);
      summary =
          report.finish(totals.end_time, totals.sum(), static_cast<int64_t>(trace.requests.size()));
      out.commit();
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      break;
    }
    benchmark::DoNotOptimize(summary.duration_s);
    const double t_replay = llm::bench::seconds_since(t1);
    const double wall = llm::bench::seconds_since(t0);
    if (summary.sequences != kSyntheticRequests) {
      state.SkipWithError("not every synthetic request finished");
      break;
    }

    gen_s += t_gen;
    replay_s += t_replay;
    sim_s += llm::nanos_to_seconds(totals.end_time);
    speedup += llm::nanos_to_seconds(totals.end_time) / wall;
    steps += static_cast<double>(totals.sum().num_steps);
    std::error_code ec;
    bytes += static_cast<double>(fs::file_size(out_path, ec));
    peak_waiting = std::max(peak_waiting, totals.sum().peak_waiting);
    preemptions = std::max(preemptions, totals.sum().num_preemptions);
  }
  std::error_code ec;
  fs::remove_all(dir, ec);

  state.counters["requests"] = static_cast<double>(kSyntheticRequests);
  state.counters["rate_req_s"] = kSyntheticRate;
  set_avg(state, "steps", steps);
  set_avg(state, "sim_s", sim_s);
  set_avg(state, "speedup", speedup);
  set_avg(state, "gen_s", gen_s);
  set_avg(state, "replay_s", replay_s);
  set_avg(state, "jsonl_MiB", bytes / (1024.0 * 1024.0));
  state.counters["peak_waiting"] = static_cast<double>(peak_waiting);
  state.counters["preemptions"] = static_cast<double>(preemptions);
  // VmHWM of the process; reset at the start of this benchmark when the kernel allows it
  // (hwm_reset = 1), else it may include earlier benchmarks' peaks (an upper bound).
  state.counters["peak_rss_MiB"] =
      static_cast<double>(llm::bench::peak_rss_bytes()) / (1024.0 * 1024.0);
  state.counters["hwm_reset"] = hwm_reset ? 1 : 0;
}

BENCHMARK(BM_ReplaySynthetic1M)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
