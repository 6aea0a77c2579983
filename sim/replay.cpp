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
  EngineTotals totals;

  int64_t outstanding() const {
    const Scheduler& s = core->scheduler();
    return static_cast<int64_t>(s.num_running() + s.num_waiting() + inbox.size());
  }
  void note_waiting() {
    totals.peak_waiting = std::max<int64_t>(totals.peak_waiting,
                                            static_cast<int64_t>(core->scheduler().num_waiting()));
  }
};

}  // namespace

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
  r->scripted_output_len = e.output_len;
  r->timeline.arrival = e.arrival_ns;
  return r;
}

ReplayTotals run_replay(const Trace& trace, const ReplayConfig& config,
                        const std::vector<EngineObserver*>& observers, const ReplayHooks& hooks) {
  const size_t num_engines = static_cast<size_t>(std::max(config.data_parallel_size, 1));
  if (observers.size() != num_engines) {
    throw std::invalid_argument("run_replay: one observer per engine is required");
  }
  SimClock clock(0);
  std::vector<EngineSlot> slots(num_engines);
  for (size_t i = 0; i < num_engines; ++i) {
    // Each engine has its own generator stream so routing does not couple their token ids.
    slots[i].backend = std::make_unique<SimBackend>(config.deployment, config.seed);
    slots[i].core =
        std::make_unique<EngineCore>(config.scheduler, *slots[i].backend, clock, observers[i]);
    slots[i].totals.num_gpu_blocks = config.scheduler.num_gpu_blocks;
  }
  Router router(config.routing);
  std::vector<EngineLoad> loads(num_engines);

  const auto& requests = trace.requests;
  size_t next = 0;
  const bool scraping = hooks.scrape_interval > 0 && hooks.on_scrape;
  Nanos next_scrape = 0;
  Nanos last_scrape = -1;

  auto route = [&](std::unique_ptr<Request> parent) {
    for (size_t i = 0; i < num_engines; ++i) {
      loads[i] = {slots[i].outstanding(), &slots[i].core->scheduler().kv()};
    }
    EngineSlot& slot = slots[router.pick(*parent, loads)];
    ++slot.totals.num_requests;
    for (auto& child : fan_out(*parent)) {
      ++slot.totals.num_sequences;
      if (slot.busy) {
        slot.inbox.push_back(std::move(child));
      } else {
        slot.core->add_request(std::move(child));
      }
    }
  };
  auto work_remains = [&] {
    if (next < requests.size()) return true;
    for (const EngineSlot& s : slots) {
      if (s.busy || s.core->has_unfinished()) return true;
    }
    return false;
  };

  while (work_remains()) {
    // The next instant with an event.
    Nanos t = next < requests.size() ? requests[next].arrival_ns : INT64_MAX;
    for (const EngineSlot& s : slots) {
      if (s.busy) t = std::min(t, s.done_at);
    }
    if (scraping) t = std::min(t, next_scrape);
    clock.set(std::max(t, clock.now()));
    const Nanos now = clock.now();

    for (size_t i = 0; i < num_engines; ++i) {
      EngineSlot& s = slots[i];
      if (!s.busy || s.done_at > now) continue;
      s.core->end_step(now);
      s.busy = false;
      ++s.totals.num_steps;
      for (auto& r : s.inbox) s.core->add_request(std::move(r));
      s.inbox.clear();
      if (hooks.on_step) hooks.on_step(i, *s.core);
    }
    while (next < requests.size() && requests[next].arrival_ns <= now) {
      route(make_request(requests[next], next));
      ++next;
    }
    for (EngineSlot& s : slots) s.note_waiting();
    if (scraping && next_scrape <= now) {
      hooks.on_scrape(now);
      last_scrape = now;
      next_scrape += hooks.scrape_interval;
    }
    for (EngineSlot& s : slots) {
      if (s.busy || !s.core->has_unfinished()) continue;
      Nanos duration = 0;
      if (!s.core->begin_step(&duration)) {
        throw std::logic_error("engine has unfinished requests but can schedule none");
      }
      s.busy = true;
      s.done_at = now + std::max<Nanos>(duration, 1);
    }
  }

  ReplayTotals totals;
  totals.end_time = clock.now();
  if (scraping && last_scrape < totals.end_time) {
    // The final scrape sees the finished state, at the first scrape instant at or after the end.
    clock.set(std::max(next_scrape, clock.now()));
    hooks.on_scrape(clock.now());
  }
  for (EngineSlot& s : slots) {
    const Scheduler& sched = s.core->scheduler();
    s.totals.num_preemptions = sched.num_preemptions();
    s.totals.prefix_queries = sched.kv().counters().queries;
    s.totals.prefix_hits = sched.kv().counters().hits;
    totals.engines.push_back(s.totals);
  }
  return totals;
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
