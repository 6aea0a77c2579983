#include "sim/recorded/recorded_replay.h"

#include <unordered_map>

#include "core/engine_observer.h"
#include "sim/recorded/run_figures.h"

namespace llm {
namespace {

// Each trace request's measured span, in milliseconds, once it finished with its tokens.
struct RequestSample {
  bool done = false;
  double ttft = 0, e2e = 0, tpot = -1;  // tpot < 0: one token only
  double span = 0;                      // last - first token
  int64_t gaps = 0;                     // output tokens - 1
};

class RecordedCollector final : public EngineObserver {
 public:
  RecordedCollector(const RecordedRun& run, std::vector<RequestSample>& samples)
      : run_(run), samples_(samples) {
    for (size_t i = 0; i < run.trace.requests.size(); ++i) index_[run.trace.requests[i].id] = i;
  }

  void note_client(const Request& r, const ClientTimes& t) {
    client_of_ = &r;
    client_ = t;
  }

  void on_finished(const Request& r) override {
    const bool have_client = client_of_ == &r;
    client_of_ = nullptr;
    auto it = index_.find(r.parent_id);
    if (it == index_.end() || refused_at_admission(r)) return;
    if (r.finish_reason == FinishReason::kAbort) {
      ++aborted;
      return;
    }
    const Timeline& tl = r.timeline;
    if (tl.first_token == kNoTime) return;
    RequestSample& s = samples_[it->second];
    Nanos start = tl.arrival, first = tl.first_token, last = tl.last_token;
    if (run_.view == MeasuredView::kEngine) {
      start = tl.queued;
    } else if (have_client) {
      start = client_.server_arrival;
      first = client_.first_token;
      last = client_.finished;
    }
    s.done = true;
    s.ttft = 1e-6 * static_cast<double>(first - start);
    s.e2e = 1e-6 * static_cast<double>(last - start);
    s.gaps = r.num_output_tokens - 1;
    s.span = 1e-6 * static_cast<double>(last - first);
    if (s.gaps > 0) s.tpot = s.span / static_cast<double>(s.gaps);
  }

  int64_t aborted = 0;

 private:
  const RecordedRun& run_;
  std::vector<RequestSample>& samples_;
  std::unordered_map<std::string, size_t> index_;
  const Request* client_of_ = nullptr;
  ClientTimes client_;
};

RunFigures figures_of_range(const std::vector<RequestSample>& samples, size_t first, size_t end) {
  std::vector<double> ttft, e2e, tpot;
  double span = 0;
  int64_t gaps = 0;
  for (size_t i = first; i < end && i < samples.size(); ++i) {
    const RequestSample& s = samples[i];
    if (!s.done) continue;
    ttft.push_back(s.ttft);
    e2e.push_back(s.e2e);
    if (s.tpot >= 0) tpot.push_back(s.tpot);
    span += s.span;
    gaps += s.gaps;
  }
  RunFigures f = figures_of_samples(ttft, e2e, tpot);
  if (gaps > 0) f.itl_mean = span / static_cast<double>(gaps);
  return f;
}

}  // namespace

RecordedPrediction predict_recorded_run(const RecordedRun& run, ReplayConfig config) {
  config.faults = ReplayFaults{};
  if (run.client_timeout_ns) {
    for (size_t i = 0; i < run.trace.requests.size(); ++i) {
      config.faults.aborts.push_back(
          {run.trace.requests[i].arrival_ns + *run.client_timeout_ns, i, -1});
    }
  }
  std::vector<RequestSample> samples(run.trace.requests.size());
  RecordedCollector collector(run, samples);
  ReplayHooks hooks;
  hooks.on_client_times = [&collector](size_t, const Request& r, const ClientTimes& t) {
    collector.note_client(r, t);
  };
  const ReplayTotals totals = run_replay(run.trace, config, {&collector}, hooks);
  RecordedPrediction p;
  p.api_server = config.api_server.has_value();
  p.whole = figures_of_range(samples, 0, samples.size());
  for (const RecordedStage& stage : run.stages) {
    p.stages.push_back(figures_of_range(samples, stage.first, stage.end));
  }
  for (const RequestSample& s : samples) p.completed += s.done ? 1 : 0;
  p.aborted = collector.aborted;
  p.preemptions = totals.sum().num_preemptions;
  return p;
}

}  // namespace llm
