#include "sim/replay/replay_reports.h"

#include <algorithm>
#include <utility>

namespace llm {

ReplayReports::ReplayReports(const Trace& replayed, size_t num_engines, std::ostream* requests_out,
                             size_t samples_in_memory)
    : ReplayReports(static_cast<int64_t>(replayed.requests.size()),
                    replayed.requests.empty() ? 0 : replayed.requests.front().arrival_ns,
                    replayed.requests.empty() ? 0 : replayed.requests.back().arrival_ns,
                    num_engines, requests_out, samples_in_memory) {}

ReplayReports::ReplayReports(int64_t trace_requests, Nanos first, Nanos last, size_t num_engines,
                             std::ostream* requests_out, size_t samples_in_memory)
    : trace_requests_(trace_requests), report_(requests_out, samples_in_memory) {
  for (size_t i = 0; i < num_engines; ++i) {
    auto tee = std::make_unique<ObserverTee>();
    tee->add(&report_);
    if (num_engines > 1) {
      // Each engine's report sees its share of the sequences: together they hold what the whole
      // run's holds.
      engine_reports_.push_back(std::make_unique<ReplayReport>(
          nullptr, std::max<size_t>(1, samples_in_memory / num_engines)));
      tee->add(engine_reports_.back().get());
    }
    overload_.push_back(std::make_unique<OverloadObserver>(first, last));
    tee->add(overload_.back().get());
    tees_.push_back(std::move(tee));
  }
}

std::vector<EngineObserver*> ReplayReports::observers() const {
  std::vector<EngineObserver*> out;
  for (const auto& tee : tees_) out.push_back(tee.get());
  return out;
}

ClientTimesFn ReplayReports::client_times() {
  std::vector<ReplayReport*> per_engine;
  for (const auto& r : engine_reports_) per_engine.push_back(r.get());
  return client_times_to(report_, std::move(per_engine));
}

void ReplayReports::on_failed(const TraceRequest& entry, size_t index, size_t engine, Nanos time) {
  report_.on_failed_request(entry, index, time);
  if (engine < engine_reports_.size())
    engine_reports_[engine]->on_failed_request(entry, index, time);
}

ReplaySummary ReplayReports::finish(const ReplayTotals& totals, const ReplayOptions& options,
                                    const LoadScalingInfo& load) {
  ReplaySummary summary = report_.finish(totals.end_time, totals.sum(), trace_requests_);
  std::vector<OverloadFigures> overload;
  for (size_t i = 0; i < overload_.size(); ++i) overload.push_back(overload_[i]->figures());
  for (size_t i = 0; i < engine_reports_.size(); ++i) {
    ReplaySummary engine = engine_reports_[i]->finish(totals.end_time, totals.engines[i],
                                                      totals.engines[i].num_requests);
    engine.samples.reset();  // the whole run's are kept; an engine's are not read again
    engine.overload = overload[i];
    summary.per_engine.push_back(std::move(engine));
  }
  summary.overload = combine_overload(overload);
  summary.load = load;
  summary.metric_percentiles = options.metric_percentiles;
  summary.goodput = goodput_targets(options.slo);
  summary.faults = options.faults;
  return summary;
}

}  // namespace llm
