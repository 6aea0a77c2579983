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

ReplaySummary summarize_replay(const ReplayOptions& options, const Trace& trace) {
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
    observers.push_back(tee.get());
    tees.push_back(std::move(tee));
  }
  const ReplayTotals totals = run_replay(*replayed, config, observers, {});
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
                      const std::function<void(size_t done, size_t total)>& on_point_done) {
  std::atomic<size_t> next{0};
  std::mutex done_mutex;
  size_t done = 0;
  auto work = [&] {
    for (size_t i = next++; i < results.size(); i = next++) {
      SweepPointResult& result = results[i];
      if (result.error.empty()) {
        try {
          result.summary = summarize_replay(options[i], trace);
          result.ok = true;
        } catch (const std::exception& e) {
          result.error = e.what();
        } catch (...) {
          result.error = "the replay failed with an unknown exception";
        }
      }
      const std::lock_guard<std::mutex> lock(done_mutex);
      ++done;
      if (on_point_done) on_point_done(done, results.size());
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
