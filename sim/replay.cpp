#include "sim/replay.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "backends/sim/sim_backend.h"
#include "core/engine_core.h"
#include "core/rng.h"

namespace llm {
namespace {

constexpr uint64_t kPromptSaltSeed = 0x7472616365ULL;

struct EngineSlot {
  std::unique_ptr<SimBackend> backend;
  std::unique_ptr<EngineCore> core;
  std::vector<std::unique_ptr<Request>> inbox;  // arrived during a step
  bool busy = false;
  Nanos done_at = 0;
};

}  // namespace

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
  r->scripted_output_len = e.output_len;
  r->timeline.arrival = e.arrival_ns;
  return r;
}

ReplayTotals run_replay(const Trace& trace, const ReplayConfig& config, EngineObserver& observer,
                        const std::function<void(const EngineCore&)>& on_step) {
  SimClock clock(0);
  EngineSlot slot;
  slot.backend = std::make_unique<SimBackend>(config.deployment, config.seed);
  slot.core = std::make_unique<EngineCore>(config.scheduler, *slot.backend, clock, &observer);
  EngineCore& engine = *slot.core;

  ReplayTotals totals;
  const auto& requests = trace.requests;
  size_t next = 0;
  auto note_waiting = [&] {
    totals.peak_waiting =
        std::max<int64_t>(totals.peak_waiting, static_cast<int64_t>(engine.scheduler().num_waiting()));
  };
  auto admit = [&](std::unique_ptr<Request> r) {
    for (auto& child : fan_out(*r)) {
      ++totals.num_sequences;
      if (slot.busy) {
        slot.inbox.push_back(std::move(child));
      } else {
        engine.add_request(std::move(child));
      }
    }
  };

  while (true) {
    // The next event: a step completion or an arrival, whichever is first (completion on a tie).
    Nanos t = -1;
    if (slot.busy) t = slot.done_at;
    if (next < requests.size() && (t < 0 || requests[next].arrival_ns < t)) {
      t = requests[next].arrival_ns;
    }
    if (t < 0) break;  // no step in flight and no arrival left
    clock.set(std::max(t, clock.now()));

    if (slot.busy && slot.done_at <= clock.now()) {
      engine.end_step(clock.now());
      slot.busy = false;
      ++totals.num_steps;
      for (auto& r : slot.inbox) engine.add_request(std::move(r));
      slot.inbox.clear();
      if (on_step) on_step(engine);
    }
    while (next < requests.size() && requests[next].arrival_ns <= clock.now()) {
      admit(make_request(requests[next], next));
      ++next;
    }
    note_waiting();

    if (!slot.busy && engine.has_unfinished()) {
      Nanos duration = 0;
      if (!engine.begin_step(&duration)) {
        throw std::logic_error("engine has unfinished requests but can schedule none");
      }
      slot.busy = true;
      slot.done_at = clock.now() + std::max<Nanos>(duration, 1);
    }
  }
  totals.end_time = clock.now();
  totals.num_preemptions = engine.scheduler().num_preemptions();
  totals.prefix_queries = engine.scheduler().kv().counters().queries;
  totals.prefix_hits = engine.scheduler().kv().counters().hits;
  totals.num_gpu_blocks = config.scheduler.num_gpu_blocks;
  return totals;
}

}  // namespace llm
