#include "sim/cli/sweep_runner.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "core/observer_tee.h"
#include "sim/replay_report.h"
#include "sim/trace_io.h"

namespace llm {
namespace {

int64_t sequences_of(const Trace& trace) {
  int64_t total = 0;
  for (const TraceRequest& r : trace.requests) total += r.n;
  return total;
}

}  // namespace

ReplaySummary summarize_replay(const ReplayOptions& options, const Trace& trace,
                               const ProgressFn& progress, EngineObserver* also) {
  const ReplayConfig config = make_replay_config(options);
  Trace scaled;
  const Trace* replayed = &trace;
  if (options.arrival_rate_scale != 1.0) {
    scaled = trace;
    scale_arrivals(scaled, options.arrival_rate_scale);
    replayed = &scaled;
  }
  // As execute_replay: one report over every engine, and one per engine when there are several.
  const size_t num_engines = static_cast<size_t>(config.data_parallel_size);
  ReplayReport report(nullptr);
  std::vector<std::unique_ptr<ReplayReport>> engine_reports;
  std::vector<std::unique_ptr<ObserverTee>> tees;
  std::vector<EngineObserver*> observers;
  for (size_t i = 0; i < num_engines; ++i) {
    auto tee = std::make_unique<ObserverTee>();
    tee->add(&report);
    if (num_engines > 1) {
      engine_reports.push_back(std::make_unique<ReplayReport>(nullptr));
      tee->add(engine_reports.back().get());
    }
    if (also) tee->add(also);
    observers.push_back(tee.get());
    tees.push_back(std::move(tee));
  }
  ReplayHooks hooks;
  std::vector<ReplayReport*> per_engine;
  for (auto& r : engine_reports) per_engine.push_back(r.get());
  hooks.on_client_times = client_times_to(report, per_engine);
  if (progress) {
    const int64_t total = sequences_of(*replayed);
    // total by value: it goes out of scope before the replay calls the hook.
    hooks.on_step = [&report, &progress, total](size_t, const EngineCore&) {
      progress(report.num_finished(), total);
    };
  }
  const ReplayTotals totals = run_replay(*replayed, config, observers, hooks);
  ReplaySummary summary =
      report.finish(totals.end_time, totals.sum(), static_cast<int64_t>(replayed->requests.size()));
  for (size_t i = 0; i < engine_reports.size(); ++i) {
    summary.per_engine.push_back(engine_reports[i]->finish(totals.end_time, totals.engines[i],
                                                           totals.engines[i].num_requests));
  }
  return summary;
}

void run_sweep_points(const Trace& trace, const std::vector<ReplayOptions>& options,
                      std::vector<SweepPointResult>& results, int jobs,
                      const ProgressFn& on_progress) {
  const int64_t per_point = sequences_of(trace);
  int64_t total = 0;
  for (const SweepPointResult& result : results) total += result.error.empty() ? per_point : 0;
  std::atomic<size_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex progress_mutex;
  // Reports without waiting: a worker that finds another one reporting skips its turn.
  auto report = [&](bool wait) {
    if (!on_progress) return;
    std::unique_lock<std::mutex> lock(progress_mutex, std::defer_lock);
    if (wait) {
      lock.lock();
    } else if (!lock.try_lock()) {
      return;
    }
    on_progress(done.load(), total);
  };
  auto work = [&] {
    for (size_t i = next++; i < results.size(); i = next++) {
      SweepPointResult& result = results[i];
      if (!result.error.empty()) continue;
      int64_t reported = 0;
      const ProgressFn step = [&](int64_t finished, int64_t) {
        done += finished - reported;
        reported = finished;
        report(false);
      };
      try {
        result.summary = summarize_replay(options[i], trace, on_progress ? step : ProgressFn{});
        result.ok = true;
      } catch (const std::exception& e) {
        result.error = e.what();
      } catch (...) {
        result.error = "the replay failed with an unknown exception";
      }
      done += per_point - reported;
      report(true);
    }
  };
  const size_t threads = std::clamp<size_t>(static_cast<size_t>(std::max(jobs, 1)), 1,
                                            std::max<size_t>(1, results.size()));
  std::vector<std::thread> workers;
  for (size_t t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();
}

}  // namespace llm
