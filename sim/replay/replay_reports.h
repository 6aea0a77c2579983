// The reports every replay keeps, whichever command runs it (llmsim replay, sweep, capacity): the
// whole-run ReplayReport (streaming requests.jsonl when given a stream), one report per engine
// when there are several, and one OverloadObserver per engine (sim/replay/overload.h), each
// engine's behind one ObserverTee to which the caller adds its own observers (spans, metrics,
// capacity's busiest hour); and the summary they make together.
// Thread-safety: none; it observes one replay.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <vector>

#include "core/observer_tee.h"
#include "sim/replay/overload.h"
#include "sim/replay/replay_options.h"
#include "sim/replay/replay_report.h"

namespace llm {

class ReplayReports {
 public:
  // `replayed`: the trace as the replay runs it (after load scaling). requests_out may be null.
  // `samples_in_memory`: the whole run's report's bound before it spills (ReplayReport); the
  // engines' reports share as much between them.
  ReplayReports(const Trace& replayed, size_t num_engines, std::ostream* requests_out,
                size_t samples_in_memory = kDefaultSamplesInMemory);
  // The same for a trace read as the replay goes (sim/trace/request_stream.h): its request count
  // and first and last arrivals, from a first pass.
  ReplayReports(int64_t trace_requests, Nanos first_arrival, Nanos last_arrival, size_t num_engines,
                std::ostream* requests_out, size_t samples_in_memory = kDefaultSamplesInMemory);

  ReplayReport& report() { return report_; }
  ObserverTee& tee(size_t engine) { return *tees_[engine]; }
  // One per engine, for run_replay.
  std::vector<EngineObserver*> observers() const;
  // For ReplayHooks: each sequence's client view (with the API server), and a trace request that
  // failed without reaching an engine (a fault), to the whole run's report and its engine's.
  ClientTimesFn client_times();
  void on_failed(const TraceRequest& entry, size_t index, size_t engine, Nanos time);

  // The summary once run_replay returned `totals`: the whole run's figures, each engine's (with
  // several), the overload test, and what `options` asks the summary to report (percentiles,
  // per-request targets); `load` says how the trace was scaled.
  ReplaySummary finish(const ReplayTotals& totals, const ReplayOptions& options,
                       const LoadScalingInfo& load);

 private:
  int64_t trace_requests_;
  ReplayReport report_;
  std::vector<std::unique_ptr<ReplayReport>> engine_reports_;
  std::vector<std::unique_ptr<OverloadObserver>> overload_;
  std::vector<std::unique_ptr<ObserverTee>> tees_;
};

}  // namespace llm
