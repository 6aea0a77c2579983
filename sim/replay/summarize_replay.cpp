#include "sim/replay/summarize_replay.h"

#include "sim/replay/replay_reports.h"

namespace llm {

int64_t sequences_of(const Trace& trace) {
  int64_t total = 0;
  for (const TraceRequest& r : trace.requests) total += r.n;
  return total;
}

ReplaySummary summarize_replay(const ReplayOptions& options, const Trace& trace,
                               const ProgressFn& progress, EngineObserver* also) {
  Trace storage;
  LoadScalingInfo load;
  const Trace& replayed = replayed_trace(trace, options, storage, load);
  return summarize_scaled_replay(options, replayed, load, progress, also);
}

ReplaySummary summarize_scaled_replay(const ReplayOptions& options, const Trace& replayed,
                                      const LoadScalingInfo& load, const ProgressFn& progress,
                                      EngineObserver* also) {
  const ReplayConfig config = make_replay_config(options);
  // As execute_replay: one report over every engine, one per engine when there are several.
  const size_t num_engines = static_cast<size_t>(config.data_parallel_size);
  ReplayReports reports(replayed, num_engines, nullptr,
                        static_cast<size_t>(options.samples_in_memory));
  if (also) {
    for (size_t i = 0; i < num_engines; ++i) reports.tee(i).add(also);
  }
  ReplayHooks hooks;
  hooks.on_client_times = reports.client_times();
  if (progress) {
    const int64_t total = sequences_of(replayed);
    ReplayReport* report = &reports.report();
    // total by value: it goes out of scope before the replay calls the hook.
    hooks.on_step = [report, &progress, total](size_t, const EngineCore&) {
      progress(report->num_finished(), total);
    };
  }
  hooks.on_failed = [&](size_t request, const TraceRequest& entry, size_t engine, int, Nanos t) {
    reports.on_failed(entry, request, engine, t);
  };
  const ReplayTotals totals = run_replay(replayed, config, reports.observers(), hooks);
  return reports.finish(totals, options, load);
}

}  // namespace llm
