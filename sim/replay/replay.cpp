#include "sim/replay/replay.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "backends/sim/sim_backend.h"
#include "core/engine_core.h"
#include "core/rng.h"
#include "sim/api_server/api_frontend.h"
#include "sim/faults/fault_schedule.h"
#include "sim/routing/announced_blocks.h"
#include "sim/routing/scraped_gauges.h"

namespace llm {
namespace {

constexpr uint64_t kPromptSaltSeed = 0x7472616365ULL;
constexpr uint64_t kLoopAbortStream = 0x6c6f6f70ULL;
constexpr uint64_t kNoId = std::numeric_limits<uint64_t>::max();

// One sequence waiting for its engine's step to complete.
struct Arrival {
  size_t request;  // trace index
  Nanos arrival;   // the trace request's arrival
  std::unique_ptr<Request> seq;
};

// A client abort waiting for its engine's step to complete.
struct PendingAbort {
  ClientAbort abort;
  bool unqueued;  // its sequences were not yet queued when it was due
};

struct EngineSlot {
  std::unique_ptr<SimBackend> backend;
  std::unique_ptr<FaultyBackend> faulty;  // only with backend faults
  std::unique_ptr<EngineCore> core;
  EngineObserver* observer = nullptr;
  std::vector<Arrival> inbox;  // arrived during a step
  std::vector<PendingAbort> aborts;
  bool busy = false;
  bool down = false;                 // in an engine-down window: takes no requests, runs no steps
  bool fail_when_step_ends = false;  // went down mid-step
  Nanos done_at = 0;
  EngineTotals totals;

  int64_t outstanding() const {
    const Scheduler& s = core->scheduler();
    return static_cast<int64_t>(s.num_unfinished_running() + s.num_waiting() + inbox.size());
  }
  void note_waiting() {
    totals.peak_waiting = std::max<int64_t>(totals.peak_waiting,
                                            static_cast<int64_t>(core->scheduler().num_waiting()));
  }
};

AbortState classify(const Request& r) {
  if (r.state == RequestState::kWaiting) {
    return r.timeline.num_preemptions > 0 ? AbortState::kPreempted : AbortState::kWaiting;
  }
  const bool prefill = r.num_output_tokens == 0 || r.num_computed_tokens + 1 < r.num_tokens();
  return prefill ? AbortState::kPrefill : AbortState::kDecode;
}

// The discrete-event loop of run_replay over its engines.
class Replayer {
 public:
  Replayer(RequestStream& trace, const ReplayConfig& config,
           const std::vector<EngineObserver*>& observers, const ReplayHooks& hooks);
  ReplayTotals run();

 private:
  void make_engine(size_t index, EngineObserver* observer);
  bool work_remains() const;
  Nanos next_instant() const;
  void complete_steps(Nanos now);
  void arrive(size_t index, const TraceRequest& entry);
  void hand_off(Nanos now);
  void route(size_t index, const TraceRequest& entry, Nanos frontend_arrival);
  size_t pick_engine(Request& request);
  void apply_fault_transitions(Nanos now);
  void fail_everything(EngineSlot& slot);
  void add(EngineSlot& slot, Arrival arrival);
  void apply_client_aborts(Nanos now);
  bool apply_abort(EngineSlot& slot, const ClientAbort& abort, bool unqueued);
  bool abort_sequence(EngineSlot& slot, uint64_t id, bool unqueued);
  bool loop_abort(EngineSlot& slot);
  void notify_state(EngineSlot& slot);
  void scrape(Nanos now);
  void scrape_for_router(Nanos now);
  GaugeSample gauges_seen(size_t engine, Nanos now);
  void start_steps(Nanos now);
  ReplayTotals totals();

  RequestStream& trace_;
  const TraceRequest* pending_ = nullptr;  // the next trace request to arrive (null: none left)
  const ReplayConfig& config_;
  const ReplayHooks& hooks_;
  SimClock clock_{0};
  std::unique_ptr<ApiFrontend> frontend_;  // with config.api_server (outlives the engines)
  std::vector<EngineSlot> slots_;
  Router router_;
  std::vector<EngineLoad> loads_;
  size_t next_ = 0;               // next trace request to arrive
  size_t routed_ = 0;             // trace requests routed to an engine (in trace order)
  std::deque<Ingest> handoffs_;   // read by the API server (id: trace index), in engine order
  std::vector<Ingest> ingested_;  // scratch of hand_off
  // Trace requests at the API server, not yet handed to an engine (by trace index).
  std::unordered_map<size_t, TraceRequest> at_frontend_;
  std::vector<ClientAbort> aborts_;
  size_t next_abort_ = 0;
  // Only with client aborts (else memory would grow with the trace): per trace request.
  bool track_requests_ = false;
  std::vector<size_t> engine_of_;   // its engine, once routed
  std::vector<uint64_t> first_id_;  // engine id of its first sequence, once queued
  std::vector<int32_t> n_of_;       // its sequences
  Rng loop_rng_;
  std::vector<const Request*> candidates_;  // scratch of loop_abort
  FaultTotals faults_;
  FaultSchedule schedule_;
  size_t next_transition_ = 0;
  std::vector<EngineLoad> up_loads_;  // scratch of pick_engine while an engine is down
  std::vector<size_t> up_engines_;
  bool scraping_;
  Nanos next_scrape_ = 0;
  Nanos last_scrape_ = -1;
  // The llm-d policies: the router's scrapes and the engines' announced prefixes.
  bool epp_policy_;
  bool router_scraping_;
  Nanos next_router_scrape_ = 0;
  ScrapedGauges router_gauges_;
  std::vector<std::unique_ptr<AnnouncedBlocks>> announced_;  // per engine, from its KV events
};

Replayer::Replayer(RequestStream& trace, const ReplayConfig& config,
                   const std::vector<EngineObserver*>& observers, const ReplayHooks& hooks)
    : trace_(trace),
      config_(config),
      hooks_(hooks),
      slots_(observers.size()),
      router_(config.routing, config.epp.weights ? &*config.epp.weights : nullptr, config.seed),
      loads_(observers.size()),
      aborts_(config.faults.aborts),
      track_requests_(!aborts_.empty()),
      loop_rng_(hash_combine(config.faults.seed, kLoopAbortStream)),
      schedule_(config.faults.windows, observers.size(), config.seed),
      scraping_(hooks.scrape_interval > 0 && hooks.on_scrape),
      epp_policy_(routes_on_scrapes(config.routing) && observers.size() > 1),
      router_scraping_(epp_policy_ && config.epp.scrape_interval > 0),
      router_gauges_(observers.size(), config.epp.staleness) {
  std::stable_sort(aborts_.begin(), aborts_.end(),
                   [](const ClientAbort& a, const ClientAbort& b) { return a.time < b.time; });
  if (config.api_server) {
    frontend_ = std::make_unique<ApiFrontend>(
        api_server_costs_for_model(*config.api_server, config.deployment.model.layers), observers,
        hooks.on_client_times, api_server_processes(config));
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    make_engine(i, frontend_ ? frontend_->observer(i) : observers[i]);
  }
  if (epp_policy_) {
    for (EngineSlot& s : slots_) {
      s.core->enable_kv_events();
      announced_.push_back(std::make_unique<AnnouncedBlocks>(s.core->scheduler().kv()));
    }
  }
}

void Replayer::make_engine(size_t i, EngineObserver* observer) {
  EngineSlot& slot = slots_[i];
  // One seed for every engine, so a request's token ids do not depend on its routing; each engine
  // its own stream of step-time draws.
  slot.backend = std::make_unique<SimBackend>(config_.deployment, config_.seed, i);
  Backend* backend = slot.backend.get();
  BackendFaults faults = config_.faults.backend;
  const auto& slowdown = config_.faults.engine_slowdown;
  if (i < slowdown.size()) faults.slowdown *= slowdown[i];
  if (faults.any()) {
    slot.faulty =
        std::make_unique<FaultyBackend>(*backend, faults, hash_combine(config_.faults.seed, i + 1));
    backend = slot.faulty.get();
  }
  slot.observer = observer;
  slot.core = std::make_unique<EngineCore>(config_.scheduler, *backend, clock_, observer);
  slot.totals.num_gpu_blocks = config_.scheduler.num_gpu_blocks;
}

bool Replayer::work_remains() const {
  if (pending_ || !handoffs_.empty()) return true;
  if (frontend_ && frontend_->next_event() != kNoTime) return true;
  for (const EngineSlot& s : slots_) {
    if (s.busy || s.core->has_unfinished()) return true;
  }
  return false;
}

Nanos Replayer::next_instant() const {
  Nanos t = pending_ ? pending_->arrival_ns : INT64_MAX;
  for (const EngineSlot& s : slots_) {
    if (s.busy) t = std::min(t, s.done_at);
  }
  if (!handoffs_.empty()) t = std::min(t, handoffs_.front().engine_arrival);
  if (frontend_ && frontend_->next_event() != kNoTime) t = std::min(t, frontend_->next_event());
  if (next_abort_ < aborts_.size()) t = std::min(t, aborts_[next_abort_].time);
  if (next_transition_ < schedule_.transitions().size()) {
    t = std::min(t, schedule_.transitions()[next_transition_].time);
  }
  if (scraping_) t = std::min(t, next_scrape_);
  if (router_scraping_) t = std::min(t, next_router_scrape_);
  return t;
}

ReplayTotals Replayer::run() {
  pending_ = trace_.next();
  while (work_remains()) {
    clock_.set(std::max(next_instant(), clock_.now()));
    const Nanos now = clock_.now();
    complete_steps(now);
    scrape_for_router(now);
    apply_fault_transitions(now);
    while (pending_ && pending_->arrival_ns <= now) {
      arrive(next_, *pending_);
      ++next_;
      pending_ = trace_.next();
    }
    hand_off(now);
    apply_client_aborts(now);
    for (EngineSlot& s : slots_) s.note_waiting();
    scrape(now);
    start_steps(now);
  }
  return totals();
}

void Replayer::complete_steps(Nanos now) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    EngineSlot& s = slots_[i];
    if (!s.busy || s.done_at > now) continue;
    s.core->end_step(now);
    s.busy = false;
    ++s.totals.num_steps;
    if (s.core->last_step_failed()) ++faults_.failed_steps;
    for (Arrival& a : s.inbox) add(s, std::move(a));
    s.inbox.clear();
    bool aborted = false;
    for (const PendingAbort& p : s.aborts) aborted |= apply_abort(s, p.abort, p.unqueued);
    s.aborts.clear();
    if (config_.faults.loop_abort_probability > 0) aborted |= loop_abort(s);
    if (aborted) notify_state(s);
    if (s.fail_when_step_ends) {
      s.fail_when_step_ends = false;
      fail_everything(s);
    }
    if (epp_policy_) {
      // The step's KV-cache events reach the picker's index as the step completes.
      for (const KvEvent& e : s.core->take_kv_events()) announced_[i]->apply(e);
    }
    if (hooks_.on_step) hooks_.on_step(i, *s.core);
  }
}

void Replayer::arrive(size_t index, const TraceRequest& entry) {
  if (!frontend_) {
    route(index, entry, entry.arrival_ns);
    return;
  }
  at_frontend_.emplace(index, entry);
  frontend_->arrive(entry.arrival_ns, entry.prompt_len, index);
}

void Replayer::hand_off(Nanos now) {
  if (!frontend_) return;
  ingested_.clear();
  frontend_->advance(now, ingested_);
  // In the order they reach the engines: ApiFrontend::advance sorts a call's own, and every read
  // it returns ended after those of the calls before.
  handoffs_.insert(handoffs_.end(), ingested_.begin(), ingested_.end());
  while (!handoffs_.empty() && handoffs_.front().engine_arrival <= now) {
    const Ingest h = handoffs_.front();
    handoffs_.pop_front();
    auto it = at_frontend_.find(h.id);
    route(h.id, it->second, h.frontend_arrival);
    at_frontend_.erase(it);
  }
}

void Replayer::route(size_t index, const TraceRequest& entry, Nanos frontend_arrival) {
  std::unique_ptr<Request> parent = make_request(entry, index);
  parent->timeline.arrival = frontend_arrival;
  ++routed_;
  if (track_requests_ && index >= engine_of_.size()) {
    engine_of_.resize(index + 1, 0);
    first_id_.resize(index + 1, kNoId);
    n_of_.resize(index + 1, 1);
  }
  if (track_requests_) n_of_[index] = std::max<int32_t>(entry.n, 1);
  const Nanos now = clock_.now();
  for (size_t i = 0; i < slots_.size(); ++i) {
    loads_[i] = EngineLoad{};
    loads_[i].outstanding = slots_[i].outstanding();
    loads_[i].kv = &slots_[i].core->scheduler().kv();
    if (epp_policy_) {
      loads_[i].scraped = gauges_seen(i, now);
      loads_[i].announced = announced_[i].get();
    }
  }
  const size_t picked = pick_engine(*parent);
  if (picked == kNoEngine) {
    if (track_requests_) engine_of_[index] = kNoEngine;
    ++faults_.unroutable;
    if (hooks_.on_failed) hooks_.on_failed(index, entry, kNoEngine, 503, now);
    return;
  }
  if (schedule_.answers_5xx(index, now)) {
    if (track_requests_) engine_of_[index] = kNoEngine;
    ++faults_.http_5xx;
    if (hooks_.on_failed) hooks_.on_failed(index, entry, picked, 500, now);
    return;
  }
  if (hooks_.on_route) hooks_.on_route(index, picked);
  if (track_requests_) engine_of_[index] = picked;
  EngineSlot& slot = slots_[picked];
  ++slot.totals.num_requests;
  for (auto& child : fan_out(*parent)) {
    ++slot.totals.num_sequences;
    if (slot.busy) {
      slot.inbox.push_back({index, entry.arrival_ns, std::move(child)});
    } else {
      add(slot, {index, entry.arrival_ns, std::move(child)});
    }
  }
}

size_t Replayer::pick_engine(Request& request) {
  bool any_down = false;
  for (const EngineSlot& s : slots_) any_down |= s.down;
  if (!any_down) return router_.pick(request, loads_);
  // The router chooses among the engines that are up, as a gateway whose health checks failed
  // for the others.
  up_loads_.clear();
  up_engines_.clear();
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].down) continue;
    up_loads_.push_back(loads_[i]);
    up_engines_.push_back(i);
  }
  if (up_engines_.empty()) return kNoEngine;
  return up_engines_[router_.pick(request, up_loads_)];
}

void Replayer::apply_fault_transitions(Nanos now) {
  const auto& transitions = schedule_.transitions();
  for (; next_transition_ < transitions.size() && transitions[next_transition_].time <= now;
       ++next_transition_) {
    const FaultSchedule::Transition& t = transitions[next_transition_];
    EngineSlot& slot = slots_[t.engine];
    if (t.down) {
      slot.down = true;
      if (slot.busy) {
        slot.fail_when_step_ends = true;
      } else {
        fail_everything(slot);
      }
    } else {
      slot.down = false;
      // A restarted server starts with an empty prefix cache (when a step it had begun before
      // going down has not ended yet, its requests still hold blocks and the cache stays).
      if (!slot.busy) slot.core->reset_prefix_cache();
      if (hooks_.on_restart) hooks_.on_restart(t.engine, now);
    }
  }
}

void Replayer::fail_everything(EngineSlot& slot) {
  for (Arrival& a : slot.inbox) add(slot, std::move(a));
  slot.inbox.clear();
  const Scheduler& s = slot.core->scheduler();
  std::vector<uint64_t> ids;
  for (const Request* r : s.running()) ids.push_back(r->id);
  s.waiting().for_each([&ids](const Request* r) { ids.push_back(r->id); });
  for (uint64_t id : ids) {
    if (slot.core->finish_request(id, FinishReason::kError)) ++faults_.down_errors;
  }
  if (!ids.empty()) notify_state(slot);
}

void Replayer::add(EngineSlot& slot, Arrival a) {
  const bool first = a.seq->child_index == 0;
  if (frontend_) frontend_->expect(a.arrival, a.request);
  const uint64_t id = slot.core->add_request(std::move(a.seq));
  // The sequences of one request are added one after another, so child c has id first + c.
  if (first && track_requests_) first_id_[a.request] = id;
}

void Replayer::apply_client_aborts(Nanos now) {
  if (next_abort_ >= aborts_.size() || aborts_[next_abort_].time > now) return;
  std::vector<bool> aborted(slots_.size(), false);
  for (; next_abort_ < aborts_.size() && aborts_[next_abort_].time <= now; ++next_abort_) {
    const ClientAbort& abort = aborts_[next_abort_];
    if (abort.request >= routed_) continue;  // not at its engine yet: nothing to abort
    const size_t engine = engine_of_[abort.request];
    if (engine == kNoEngine) continue;  // it failed without reaching an engine
    EngineSlot& slot = slots_[engine];
    if (slot.busy) {
      slot.aborts.push_back({abort, first_id_[abort.request] == kNoId});
    } else {
      aborted[engine] = apply_abort(slot, abort, false) || aborted[engine];
    }
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (aborted[i]) notify_state(slots_[i]);
  }
}

void Replayer::notify_state(EngineSlot& slot) {
  // Without a following step nothing else would refresh the gauges (running, KV usage).
  if (slot.observer) slot.observer->on_state(slot.core->state());
}

bool Replayer::apply_abort(EngineSlot& slot, const ClientAbort& abort, bool unqueued) {
  const uint64_t first = first_id_[abort.request];
  const int32_t n = n_of_[abort.request];
  if (abort.child >= n) return false;
  if (abort.child >= 0) return abort_sequence(slot, first + abort.child, unqueued);
  bool any = false;
  for (int32_t c = 0; c < n; ++c) any = abort_sequence(slot, first + c, unqueued) || any;
  return any;
}

bool Replayer::abort_sequence(EngineSlot& slot, uint64_t id, bool unqueued) {
  const Request* r = slot.core->find_request(id);
  const AbortState state = !r         ? AbortState::kFinished
                           : unqueued ? AbortState::kUnqueued
                                      : classify(*r);
  ++faults_.aborts[static_cast<size_t>(state)];
  return r && slot.core->abort_request(id);
}

bool Replayer::loop_abort(EngineSlot& slot) {
  if (loop_rng_.uniform() >= config_.faults.loop_abort_probability) return false;
  // A state first (so rare ones, such as preempted, are hit as often as common ones), then one
  // sequence in it.
  const Scheduler& s = slot.core->scheduler();
  const auto state = static_cast<AbortState>(1 + loop_rng_.below(4));
  candidates_.clear();
  for (const Request* r : s.running()) {
    if (classify(*r) == state) candidates_.push_back(r);
  }
  s.waiting().for_each([&](const Request* r) {
    if (classify(*r) == state) candidates_.push_back(r);
  });
  if (candidates_.empty()) return false;
  const Request* victim = candidates_[loop_rng_.below(candidates_.size())];
  ++faults_.aborts[static_cast<size_t>(state)];
  return slot.core->abort_request(victim->id);
}

void Replayer::scrape(Nanos now) {
  if (!scraping_ || next_scrape_ > now) return;
  hooks_.on_scrape(now);
  last_scrape_ = now;
  next_scrape_ += hooks_.scrape_interval;
}

void Replayer::scrape_for_router(Nanos now) {
  if (!router_scraping_ || next_router_scrape_ > now) return;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const StepStats state = slots_[i].core->state();
    router_gauges_.record(i, {now, state.num_waiting, state.kv_usage});
  }
  next_router_scrape_ += config_.epp.scrape_interval;
}

GaugeSample Replayer::gauges_seen(size_t engine, Nanos now) {
  if (router_scraping_) return router_gauges_.seen_at(engine, now);
  const StepStats state = slots_[engine].core->state();  // no scrapes: the live state
  return {now, state.num_waiting, state.kv_usage};
}

void Replayer::start_steps(Nanos now) {
  for (EngineSlot& s : slots_) {
    if (s.busy || s.down || !s.core->has_unfinished()) continue;
    Nanos duration = 0;
    if (!s.core->begin_step(&duration)) {
      if (!s.core->has_unfinished()) continue;  // only seat holders were left, and they left
      throw std::logic_error("engine has unfinished requests but can schedule none");
    }
    if (!schedule_.empty()) {
      const double factor = schedule_.slow_factor(static_cast<size_t>(&s - slots_.data()), now);
      if (factor != 1.0) {
        duration = static_cast<Nanos>(std::llround(static_cast<double>(duration) * factor));
        ++faults_.slowed_steps;
      }
    }
    s.busy = true;
    s.done_at = now + std::max<Nanos>(duration, 1);
  }
}

ReplayTotals Replayer::totals() {
  ReplayTotals totals;
  totals.end_time = clock_.now();
  if (scraping_ && last_scrape_ < totals.end_time) {
    // The final scrape sees the finished state, at the first scrape instant at or after the end.
    clock_.set(std::max(next_scrape_, clock_.now()));
    hooks_.on_scrape(clock_.now());
  }
  for (EngineSlot& s : slots_) {
    const Scheduler& sched = s.core->scheduler();
    s.totals.num_preemptions = sched.num_preemptions();
    s.totals.prefix_queries = sched.kv().counters().queries;
    s.totals.prefix_hits = sched.kv().counters().hits;
    totals.engines.push_back(s.totals);
    if (s.faulty) faults_.latency_spikes += s.faulty->num_spikes();
  }
  totals.faults = faults_;
  return totals;
}

}  // namespace

bool ReplayFaults::any() const {
  for (double f : engine_slowdown) {
    if (f != 1.0) return true;
  }
  return backend.any() || !aborts.empty() || loop_abort_probability > 0 || !windows.empty();
}

const char* abort_state_name(AbortState state) {
  static constexpr const char* kNames[kNumAbortStates] = {"unqueued", "waiting", "preempted",
                                                          "prefill",  "decode",  "finished"};
  return kNames[static_cast<size_t>(state)];
}

EngineTotals ReplayTotals::sum() const {
  EngineTotals s;
  for (const EngineTotals& e : engines) {
    s.num_steps += e.num_steps;
    s.peak_waiting = std::max(s.peak_waiting, e.peak_waiting);
    s.num_requests += e.num_requests;
    s.num_sequences += e.num_sequences;
    s.num_preemptions += e.num_preemptions;
    s.prefix_queries += e.prefix_queries;
    s.prefix_hits += e.prefix_hits;
    s.num_gpu_blocks += e.num_gpu_blocks;
  }
  return s;
}

std::unique_ptr<Request> make_request(const TraceRequest& e, size_t index) {
  auto r = std::make_unique<Request>();
  r->external_id = e.id.empty() ? std::to_string(index) : e.id;
  r->parent_id = r->external_id;
  r->prompt_len = e.prompt_len;
  r->prompt_tokens = e.prompt_tokens;
  r->prefix_hash_ids = e.prefix_hash_ids;
  r->hash_block_size = e.hash_block_size;
  r->prompt_salt = hash_combine(kPromptSaltSeed, index);
  r->params.max_tokens = e.max_tokens;
  r->params.n = e.n;
  r->priority = e.priority;
  r->cache_salt = e.cache_salt;
  r->scripted_output_len = e.output_len;
  r->timeline.arrival = e.arrival_ns;
  return r;
}

ReplayTotals run_replay(const Trace& trace, const ReplayConfig& config,
                        const std::vector<EngineObserver*>& observers, const ReplayHooks& hooks) {
  TraceRequestStream stream(trace);
  return run_replay(stream, config, observers, hooks);
}

size_t api_server_processes(const ReplayConfig& config) {
  const int32_t n =
      config.api_server_count > 0 ? config.api_server_count : config.data_parallel_size;
  return static_cast<size_t>(std::max(n, 1));
}

ReplayTotals run_replay(RequestStream& trace, const ReplayConfig& config,
                        const std::vector<EngineObserver*>& observers, const ReplayHooks& hooks) {
  const size_t num_engines = static_cast<size_t>(std::max(config.data_parallel_size, 1));
  if (observers.size() != num_engines) {
    throw std::invalid_argument("run_replay: one observer per engine is required");
  }
  if (config.epp.scrape_interval < 0 || config.epp.staleness < 0) {
    throw std::invalid_argument("run_replay: the EPP's scrape interval and staleness must be >= 0");
  }
  Replayer replayer(trace, config, observers, hooks);
  return replayer.run();
}

ReplayTotals run_replay(const Trace& trace, const ReplayConfig& config, EngineObserver& observer,
                        const std::function<void(const EngineCore&)>& on_step) {
  ReplayConfig one = config;
  one.data_parallel_size = 1;
  ReplayHooks hooks;
  if (on_step) hooks.on_step = [&on_step](size_t, const EngineCore& e) { on_step(e); };
  return run_replay(trace, one, {&observer}, hooks);
}

}  // namespace llm
