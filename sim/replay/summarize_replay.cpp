#include "sim/replay/summarize_replay.h"

#include <memory>
#include <vector>

#include "core/observer_tee.h"
#include "sim/trace/trace_io.h"

namespace llm {

int64_t sequences_of(const Trace& trace) {
  int64_t total = 0;
  for (const TraceRequest& r : trace.requests) total += r.n;
  return total;
}

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

}  // namespace llm
