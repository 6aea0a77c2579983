#include "server/engine/engine_service.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <utility>

#include "core/prompt_token_stats.h"
#include "core/rng.h"

namespace llm {

// Turns engine events into sink calls. A step's tokens are sent when the step ends, together with
// the finish of the sequences that ended in it; finishes outside a step (abort, error) at once.
class EngineService::Relay final : public EngineObserver {
 public:
  struct Parent {
    SequenceSink sink;
    std::vector<uint64_t> children;  // engine ids
    int32_t remaining = 0;
    int32_t prefilling = 0;  // sequences with no token yet (in the admission load)
    int64_t prompt_len = 0;
  };

  Relay(std::atomic<size_t>& unfinished, std::atomic<int64_t>& waiting, AdmissionCounters& load,
        int64_t block_size, bool prefix_caching)
      : unfinished_(unfinished),
        waiting_(waiting),
        load_(load),
        block_size_(block_size),
        prefix_caching_(prefix_caching) {}

  // The waiting count, as soon as the scheduler has taken its decision (not only when the step's
  // modelled time has passed) and after each step and abort.
  void on_scheduled(const SchedulerOutput&, const Scheduler& scheduler) override {
    waiting_.store(static_cast<int64_t>(scheduler.num_waiting()));
  }
  void on_state(const StepStats& state) override { waiting_.store(state.num_waiting); }

  void on_token(const Request& r, Nanos, Nanos) override {
    pending_.push_back({&r, r.last_output_token, std::nullopt});
    if (r.params.logprobs >= 0) pending_.back().logprobs = r.last_logprobs;
  }

  void on_step(const StepStats& stats) override {
    waiting_.store(stats.num_waiting);
    // Several tokens of one sequence never occur in one step (no speculative decoding), so each
    // pending entry is one update.
    for (Pending& p : pending_) {
      const Request* request = p.request;
      SequenceUpdate u = make_update(*request);
      if (request->num_output_tokens == 1) prefill_done(*request);
      u.new_tokens.push_back(p.token);
      if (p.logprobs) u.logprobs.push_back(std::move(*p.logprobs));
      if (request->params.prompt_logprobs >= 0 && request->num_output_tokens == 1) {
        u.prompt_logprobs = request->prompt_logprobs;
      }
      u.finished = request->is_finished();
      if (u.finished) {
        finished_sent_.push_back(request->id);
        deliver_final(*request, u);
      } else {
        deliver(*request, u);
      }
    }
    pending_.clear();
  }

  void on_finished(const Request& r) override {
    auto it = std::find(finished_sent_.begin(), finished_sent_.end(), r.id);
    if (it != finished_sent_.end()) {
      finished_sent_.erase(it);
      return;
    }
    SequenceUpdate u = make_update(r);
    u.finished = true;
    deliver_final(r, u);
  }

  // Hands the queued updates to their sinks, in order (the engine thread, after publishing the
  // metrics of the events that made them).
  void send() {
    for (Outgoing& o : outbox_) (o.owned ? o.owned : *o.sink)(o.update);
    outbox_.clear();
  }

  std::unordered_map<std::string, Parent> parents_;

 private:
  SequenceUpdate make_update(const Request& r) const {
    SequenceUpdate u;
    u.child_index = r.child_index;
    u.finish_reason = r.finish_reason;
    u.stop_token = r.stop_token;
    u.prompt_tokens = r.prompt_len;
    u.cached_tokens = std::max<int64_t>(r.num_cached_tokens, 0);
    u.created_cache_tokens =
        cache_creation_tokens(r.prompt_len, r.num_cached_tokens, block_size_, prefix_caching_);
    u.num_output_tokens = r.num_output_tokens;
    u.timeline = r.timeline;
    return u;
  }
  // Updates are queued, not sent at once: send() delivers them once the step (or the batch of
  // commands) that made them is over and its metrics are published, so that a client that saw
  // its answer finds it in the next scrape.
  struct Outgoing {
    const SequenceSink* sink;  // the parent's, alive until send() (only finals erase a parent)
    SequenceSink owned;        // a final's sink, moved out of its erased parent
    SequenceUpdate update;
  };
  // A sequence's final update. The request leaves (and stops counting as unfinished) once all
  // its sequences have, before the sink hears of it, so a client that saw the end sees it gone.
  void deliver_final(const Request& r, const SequenceUpdate& u) {
    if (r.num_output_tokens == 0) prefill_done(r);
    auto p = parents_.find(r.parent_id);
    if (p == parents_.end()) return;
    --load_.sequences;
    if (--p->second.remaining == 0) {
      outbox_.push_back({nullptr, std::move(p->second.sink), u});
      parents_.erase(p);
      --unfinished_;
    } else {
      outbox_.push_back({nullptr, p->second.sink, u});
    }
  }
  // A sequence left the prefill (its first token, or its end without one).
  void prefill_done(const Request& r) {
    auto p = parents_.find(r.parent_id);
    if (p == parents_.end() || p->second.prefilling == 0) return;
    --p->second.prefilling;
    load_.prefill_tokens -= p->second.prompt_len;
  }
  void deliver(const Request& r, const SequenceUpdate& u) {
    auto p = parents_.find(r.parent_id);
    if (p != parents_.end()) outbox_.push_back({&p->second.sink, {}, u});
  }

  std::atomic<size_t>& unfinished_;
  std::atomic<int64_t>& waiting_;
  AdmissionCounters& load_;
  const int64_t block_size_;
  const bool prefix_caching_;
  struct Pending {
    const Request* request;
    int32_t token;
    std::optional<PositionLogprobs> logprobs;  // only when the request asks
  };
  std::vector<Pending> pending_;
  std::vector<uint64_t> finished_sent_;
  std::vector<Outgoing> outbox_;
};

EngineService::EngineService(const SchedulerConfig& config, Backend& backend,
                             EngineObserver* observer)
    : config_(config),
      backend_(backend),
      relay_(std::make_unique<Relay>(unfinished_, scheduler_waiting_, load_, config.block_size,
                                     config.enable_prefix_caching)) {
  tee_.add(relay_.get());
  if (observer) tee_.add(observer);
  engine_ = std::make_unique<EngineCore>(config, backend, clock_, &tee_);
  thread_ = std::thread([this] { loop(); });
}

EngineService::~EngineService() { stop(); }

void EngineService::set_kv_event_sink(std::function<void(std::vector<KvEvent>)> sink) {
  run_on_engine_thread([this, &sink] {
    engine_->enable_kv_events();
    kv_event_sink_ = std::move(sink);
  });
}

namespace {

// The sequences a submission adds to the waiting queue: its n children.
int64_t sequences_of(const GenerateRequest& request) {
  return std::max<int64_t>(request.params.n, 1);
}

}  // namespace

void EngineService::unload(const GenerateRequest& request) {
  const int64_t sequences = sequences_of(request);
  load_.sequences -= sequences;
  load_.prefill_tokens -= sequences * static_cast<int64_t>(request.prompt_tokens.size());
}

size_t EngineService::num_waiting() const {
  const int64_t n = inbox_sequences_.load() + scheduler_waiting_.load();
  return n > 0 ? static_cast<size_t>(n) : 0;
}

void EngineService::publish_waiting(int64_t applied) {
  scheduler_waiting_.store(static_cast<int64_t>(engine_->scheduler().num_waiting()));
  inbox_sequences_ -= applied;
}

bool EngineService::submit(GenerateRequest request, SequenceSink sink) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopping_ || failed_.load()) return false;
  if (request.arrival == kNoTime) request.arrival = clock_.now();
  ++unfinished_;
  const int64_t sequences = sequences_of(request);
  load_.sequences += sequences;
  load_.prefill_tokens += sequences * static_cast<int64_t>(request.prompt_tokens.size());
  inbox_sequences_ += sequences;
  if (submit_hook_) submit_hook_(sequences);  // after counting them: never missing from both
  inbox_.push_back({Command::kSubmit, std::move(request), std::move(sink), {}, {}, nullptr});
  wake_.notify_one();
  return true;
}

void EngineService::abort(const std::string& request_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  inbox_.push_back({Command::kAbort, {}, {}, request_id, {}, nullptr});
  wake_.notify_one();
}

void EngineService::abort_all() {
  std::lock_guard<std::mutex> lock(mutex_);
  inbox_.push_back({Command::kAbortAll, {}, {}, {}, {}, nullptr});
  wake_.notify_one();
}

void EngineService::set_admission_paused(bool paused) {
  run_on_engine_thread([this, paused] { engine_->set_admission_paused(paused); });
}

void EngineService::finish_sequence(const std::string& request_id, int32_t child_index,
                                    FinishReason reason) {
  std::lock_guard<std::mutex> lock(mutex_);
  Command c{Command::kFinishSequence, {}, {}, request_id, {}, nullptr};
  c.child_index = child_index;
  c.reason = reason;
  inbox_.push_back(std::move(c));
  wake_.notify_one();
}

void EngineService::run_on_engine_thread(const std::function<void()>& fn) {
  auto done = std::make_shared<std::promise<void>>();
  auto future = done->get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (exited_) {  // the loop is gone (reading thread_ here would race with join)
      fn();
      return;
    }
    inbox_.push_back({Command::kCall, {}, {}, {}, fn, done});
    wake_.notify_one();
  }
  future.wait();
}

EngineSnapshot EngineService::snapshot() {
  EngineSnapshot snap;
  run_on_engine_thread([this, &snap] {
    snap.num_running = engine_->scheduler().num_unfinished_running();
    snap.num_waiting = engine_->scheduler().num_waiting();
    snap.kv_usage = engine_->scheduler().kv().usage();
  });
  return snap;
}

void EngineService::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    wake_.notify_one();
  }
  if (thread_.joinable()) thread_.join();
}

void EngineService::apply(Command& c) {
  switch (c.kind) {
    case Command::kSubmit: {
      if (relay_->parents_.count(c.request.request_id) != 0) {
        // Ids must be unique among live requests (aborts and updates are keyed by them): refuse
        // the newcomer rather than mixing the two.
        SequenceUpdate refused;
        refused.finished = true;
        refused.finish_reason = FinishReason::kError;
        refused.prompt_tokens = static_cast<int64_t>(c.request.prompt_tokens.size());
        --unfinished_;
        unload(c.request);
        c.sink(refused);
        break;
      }
      Request proto;
      proto.external_id = c.request.request_id;
      proto.parent_id = c.request.request_id;
      proto.prompt_tokens = std::move(c.request.prompt_tokens);
      proto.prompt_len = static_cast<int64_t>(proto.prompt_tokens.size());
      proto.params = c.request.params;
      proto.priority = c.request.priority;
      proto.cache_salt = std::move(c.request.cache_salt);
      proto.keep_output_tokens = true;
      // Output identity follows the prompt's content (and the seed), not the request id, so the
      // same request gives the same text whatever X-Request-Id the client sends.
      proto.prompt_salt = 0x70726f6d7074ULL;
      for (int32_t t : proto.prompt_tokens) {
        proto.prompt_salt = hash_combine(proto.prompt_salt, static_cast<uint32_t>(t));
      }
      if (!proto.params.ignore_eos) {
        proto.scripted_output_len = backend_.natural_output_len(proto);
        // A simulated model's EOS is held back like a sampled one: at the earliest, the token
        // after the first min_tokens.
        if (proto.scripted_output_len > 0) {
          proto.scripted_output_len =
              std::max(proto.scripted_output_len, proto.params.min_tokens + 1);
        }
      }
      proto.timeline.arrival = c.request.arrival;
      auto children = fan_out(proto);
      Relay::Parent& parent = relay_->parents_[c.request.request_id];
      parent.sink = std::move(c.sink);
      parent.remaining = static_cast<int32_t>(children.size());
      parent.prefilling = parent.remaining;
      parent.prompt_len = proto.prompt_len;
      for (auto& child : children) {
        // add_request may finish the child at once (error), which updates `parent`.
        const uint64_t id = engine_->add_request(std::move(child));
        auto it = relay_->parents_.find(c.request.request_id);
        if (it != relay_->parents_.end()) it->second.children.push_back(id);
      }
      break;
    }
    case Command::kAbort: {
      auto it = relay_->parents_.find(c.id);
      if (it == relay_->parents_.end()) break;
      const std::vector<uint64_t> children = it->second.children;
      for (uint64_t id : children) engine_->abort_request(id);
      break;
    }
    case Command::kFinishSequence: {
      auto it = relay_->parents_.find(c.id);
      if (it == relay_->parents_.end()) break;
      const std::vector<uint64_t>& children = it->second.children;
      if (c.child_index >= 0 && static_cast<size_t>(c.child_index) < children.size()) {
        engine_->finish_request(children[static_cast<size_t>(c.child_index)], c.reason);
      }
      break;
    }
    case Command::kAbortAll: {
      std::vector<uint64_t> all;
      for (const auto& [id, parent] : relay_->parents_) {
        all.insert(all.end(), parent.children.begin(), parent.children.end());
      }
      for (uint64_t id : all) engine_->abort_request(id);
      break;
    }
    case Command::kCall:
      c.call();
      c.done->set_value();
      break;
  }
}

void EngineService::publish() {
  if (publish_hook_) publish_hook_();
  relay_->send();
}

void EngineService::fail_all(const char* what) {
  failed_ = true;
  std::fprintf(stderr, "llmserve: the engine failed and stops serving: %s\n", what);
  auto parents = std::move(relay_->parents_);
  relay_->parents_.clear();
  for (auto& [id, parent] : parents) {
    --unfinished_;
    load_.sequences -= parent.remaining;
    load_.prefill_tokens -= parent.prefilling * parent.prompt_len;
    // One error update per child: the API layer ignores those of children it already finished.
    for (size_t i = 0; i < parent.children.size() || i == 0; ++i) {
      SequenceUpdate u;
      u.child_index = static_cast<int32_t>(i);
      u.finished = true;
      u.finish_reason = FinishReason::kError;
      parent.sink(u);
    }
  }
}

void EngineService::apply_failed(Command& c) {
  switch (c.kind) {
    case Command::kSubmit: {
      SequenceUpdate refused;
      refused.finished = true;
      refused.finish_reason = FinishReason::kError;
      --unfinished_;
      unload(c.request);
      c.sink(refused);
      break;
    }
    case Command::kCall:
      c.call();
      c.done->set_value();
      break;
    default:
      break;  // nothing runs any more
  }
}

void EngineService::publish_state() {
  StepStats state;
  state.start = state.end = clock_.now();
  const Scheduler& s = engine_->scheduler();
  state.num_running = static_cast<int64_t>(s.num_unfinished_running());
  state.num_waiting = static_cast<int64_t>(s.num_waiting());
  state.free_blocks = s.kv().pool().num_free();
  state.usable_blocks = s.kv().pool().num_usable();
  state.kv_usage = s.kv().usage();
  tee_.on_state(state);
}

void EngineService::loop() {
  std::vector<Command> commands;
  bool blocked = false;  // unfinished requests, none schedulable: only new commands can help
  while (true) {
    bool stopping = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this, blocked] {
        return stopping_ || !inbox_.empty() ||
               (!failed_.load() && engine_->has_unfinished() && !blocked);
      });
      commands.swap(inbox_);
      stopping = stopping_;
    }
    // The waiting sequences these commands submit, forgotten from the inbox count once applied.
    int64_t taken = 0;
    for (const Command& c : commands) {
      if (c.kind == Command::kSubmit) taken += sequences_of(c.request);
    }
    if (failed_.load()) {
      for (Command& c : commands) apply_failed(c);
      commands.clear();
      inbox_sequences_ -= taken;
      if (stopping) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (Command& c : inbox_) apply_failed(c);
        inbox_.clear();
        exited_ = true;
        return;
      }
      continue;
    }
    try {
      bool aborted = false;
      for (Command& c : commands) {
        aborted = aborted || c.kind == Command::kAbort || c.kind == Command::kAbortAll ||
                  c.kind == Command::kFinishSequence;
        apply(c);
      }
      commands.clear();
      publish_waiting(std::exchange(taken, 0));
      // Without a following step nothing else would refresh the gauges (running, KV usage).
      if (aborted) publish_state();
      publish();
      if (stopping) {
        Command all{Command::kAbortAll, {}, {}, {}, {}, nullptr};
        apply(all);
        publish();
        std::lock_guard<std::mutex> lock(mutex_);
        for (Command& c : inbox_) {
          if (c.kind == Command::kCall) {
            c.call();
            c.done->set_value();
          }
        }
        inbox_.clear();
        exited_ = true;
        return;
      }
      blocked = engine_->has_unfinished() && !engine_->step();
      // Nothing could run (admission paused while asleep, or nothing fits): the requests just
      // queued are waiting all the same, as vLLM's gauges say after its empty step.
      if (blocked) publish_state();
      if (kv_event_sink_) {
        std::vector<KvEvent> events = engine_->take_kv_events();
        if (!events.empty()) kv_event_sink_(std::move(events));
      }
      publish();
    } catch (const std::exception& e) {
      // Commands not yet applied (a throwing kCall included) are answered as after the failure.
      for (Command& c : commands) {
        if (c.kind == Command::kCall && c.done) {
          try {
            c.done->set_value();
          } catch (const std::future_error&) {
          }
        } else if (c.kind == Command::kSubmit && c.sink) {
          apply_failed(c);
        }
      }
      commands.clear();
      inbox_sequences_ -= taken;
      relay_->send();  // what the steps before the failure produced, while its parents live
      fail_all(e.what());
    }
  }
}

}  // namespace llm
