#include "sim/api_server/api_frontend.h"

#include <algorithm>
#include <deque>
#include <stdexcept>

#include "core/prefetch.h"

namespace llm {

// Engine i's events: noted for the client's view, then passed on unchanged.
class ApiFrontend::EngineTap final : public EngineObserver {
 public:
  EngineTap(ApiFrontend& frontend, size_t engine, EngineObserver* inner)
      : frontend_(frontend), engine_(engine), inner_(inner) {}

  void on_queued(const Request& r) override {
    if (r.id < base_) throw std::logic_error("ApiFrontend: a request queued twice");
    while (open_.size() <= r.id - base_) open_.push_back({});
    open_[r.id - base_] = {ClientTimes{frontend_.expected_arrival_, kNoTime, kNoTime}, true,
                           static_cast<uint32_t>(frontend_.expected_process_)};
    if (inner_) inner_->on_queued(r);
  }
  void on_scheduled(const SchedulerOutput& batch, const Scheduler& scheduler) override {
    if (inner_) inner_->on_scheduled(batch, scheduler);
  }
  void on_token(const Request& r, Nanos time, Nanos itl_ns) override {
    note_token(r, time);
    if (inner_) inner_->on_token(r, time, itl_ns);
  }
  void on_tokens(std::span<const TokenEvent> tokens, Nanos time) override {
    constexpr size_t kAhead = 8;  // entries asked for ahead of their use (a step's are far apart)
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i + kAhead < tokens.size()) prefetch_open(tokens[i + kAhead].request->id);
      note_token(*tokens[i].request, time);
    }
    if (inner_) inner_->on_tokens(tokens, time);
  }
  void on_preempted(const Request& r) override {
    if (inner_) inner_->on_preempted(r);
  }
  void on_preemptions_reported(const Request& r, int32_t count) override {
    if (inner_) inner_->on_preemptions_reported(r, count);
  }
  void on_finished(const Request& r) override {
    if (Open* o = find(r.id)) {
      ClientTimes& t = o->times;
      // The stream's end goes out with its last token, or on its own after an abort.
      const Nanos closed = frontend_.processes_[o->process].close(r.timeline.finished);
      t.finished = t.finished == kNoTime ? closed : std::max(t.finished, closed);
      if (frontend_.on_client_times_) frontend_.on_client_times_(engine_, r, t);
      o->open = false;
      while (!open_.empty() && !open_.front().open) {  // the oldest ones closed: drop them
        open_.pop_front();
        ++base_;
      }
    }
    if (inner_) inner_->on_finished(r);
  }
  void on_step(const StepStats& stats) override {
    if (inner_) inner_->on_step(stats);
  }
  void on_kv_block_residency(const KvResidencyObservations& o) override {
    if (inner_) inner_->on_kv_block_residency(o);
  }
  void on_state(const StepStats& state) override {
    if (inner_) inner_->on_state(state);
  }

 private:
  ApiFrontend& frontend_;
  size_t engine_;
  EngineObserver* inner_;
  struct Open {
    ClientTimes times;
    bool open = false;     // queued and not finished
    uint32_t process = 0;  // the API process that read it and streams its tokens
  };
  // The client receives the token when its API process's output path has sent it.
  void note_token(const Request& r, Nanos time) {
    Open* o = find(r.id);
    const Nanos delivered = frontend_.processes_[o ? o->process : 0].deliver(time);
    if (o) {
      if (o->times.first_token == kNoTime) o->times.first_token = delivered;
      o->times.finished = delivered;
    }
  }
  void prefetch_open(uint64_t id) const {
    if (id >= base_ && id - base_ < open_.size()) prefetch_line(&open_[id - base_]);
  }
  Open* find(uint64_t id) {
    if (id < base_ || id - base_ >= open_.size()) return nullptr;
    Open& o = open_[id - base_];
    return o.open ? &o : nullptr;
  }

  // By engine request id (ids are given in order from 0): open_[i] is request base_ + i, from the
  // oldest still open to the newest queued.
  std::deque<Open> open_;
  uint64_t base_ = 0;
};

ApiFrontend::ApiFrontend(const ApiServerCosts& costs,
                         const std::vector<EngineObserver*>& engine_observers,
                         ClientTimesFn on_client_times, size_t processes)
    : processes_(std::max<size_t>(processes, 1), ApiServerProcess(costs)),
      on_client_times_(std::move(on_client_times)) {
  for (size_t i = 0; i < engine_observers.size(); ++i) {
    taps_.push_back(std::make_unique<EngineTap>(*this, i, engine_observers[i]));
  }
}

ApiFrontend::~ApiFrontend() = default;

EngineObserver* ApiFrontend::observer(size_t engine) { return taps_.at(engine).get(); }

void ApiFrontend::advance(Nanos now, std::vector<Ingest>& finished) {
  const size_t first = finished.size();
  for (ApiServerProcess& p : processes_) p.advance(now, finished);
  // One process hands over in time order; several interleave.
  if (processes_.size() > 1) {
    std::stable_sort(
        finished.begin() + static_cast<std::ptrdiff_t>(first), finished.end(),
        [](const Ingest& a, const Ingest& b) { return a.engine_arrival < b.engine_arrival; });
  }
}

Nanos ApiFrontend::next_event() const {
  Nanos t = kNoTime;
  for (const ApiServerProcess& p : processes_) {
    const Nanos e = p.next_event();
    if (e != kNoTime && (t == kNoTime || e < t)) t = e;
  }
  return t;
}

}  // namespace llm
