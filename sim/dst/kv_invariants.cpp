// The scheduler's state after every step: CONSERVATION of its running and waiting sets, KV_BLOCKS
// (reference counts, free blocks, each sequence's blocks) and the PREEMPTION and PREFIX_CACHE
// counters against the sequences.
#include "core/ceil_div.h"
#include "sim/dst/engine_checker.h"
#include "sim/dst/invariant_check.h"

namespace llm {

void EngineChecker::check_idle_blocks(const StepStats& st) const {
  if (st.num_running + st.num_waiting + st.num_seat_holders > 0) return;
  require_invariant(st.free_blocks == st.usable_blocks, "KV_BLOCKS", [&] {
    return cat("engine ", engine_, " has nothing unfinished but only ", st.free_blocks, " of ",
               st.usable_blocks, " blocks free");
  });
}

// Conservation on this engine: what was routed here and has not finished is queued (the driver
// has just applied what waited for the step).
void EngineChecker::check_sets(const Scheduler& s) const {
  // Seat holders (async scheduling) are finished: they count as neither queued nor unfinished.
  int64_t holders = 0;
  for (const Request* r : s.running()) holders += r->is_finished();
  const int64_t queued = static_cast<int64_t>(s.num_running() + s.num_waiting()) - holders;
  require_invariant(queued == live_ && live_ == run_.outstanding[engine_], "CONSERVATION", [&] {
    return cat("engine ", engine_, ": ", s.num_running(), " running + ", s.num_waiting(),
               " waiting, ", live_, " queued and unfinished, ", run_.outstanding[engine_],
               " routed and unfinished");
  });
  for (const Request* r : s.running()) {
    // Under async scheduling a sequence that stopped on a sampled token holds its seat one step.
    const bool seat_holder = run_.config.scheduler.async_scheduling && r->is_finished() &&
                             r->finish_reason == FinishReason::kStop;
    require_invariant(r->state == RequestState::kRunning || seat_holder, "CONSERVATION", [&] {
      return cat(r->external_id, " is in the running set in state ", int(r->state));
    });
  }
  s.waiting().for_each([&](const Request* r) {
    require_invariant(r->state == RequestState::kWaiting, "CONSERVATION", [&] {
      return cat(r->external_id, " is in the waiting queue in state ", int(r->state));
    });
  });
}

void EngineChecker::check_kv(const Scheduler& s) {
  count_holders(s);
  const BlockPool& pool = s.kv().pool();
  int32_t free = 0;
  for (int32_t b = 1; b < pool.num_blocks(); ++b) {
    const int32_t held = refs_[static_cast<size_t>(b)];
    require_invariant(pool.ref_count(b) == held, "KV_BLOCKS", [&] {
      return cat("engine ", engine_, " block ", b, " has ", pool.ref_count(b),
                 " references, held by ", held, " unfinished sequences");
    });
    free += held == 0 ? 1 : 0;
  }
  require_invariant(free == pool.num_free(), "KV_BLOCKS", [&] {
    return cat("engine ", engine_, ": ", pool.num_free(), " free blocks, ", free, " unheld");
  });
}

// refs_[b]: how many unfinished sequences hold block b.
void EngineChecker::count_holders(const Scheduler& s) {
  const BlockPool& pool = s.kv().pool();
  const int64_t block_size = s.kv().block_size();
  refs_.assign(static_cast<size_t>(pool.num_blocks()), 0);
  for (const Request* r : s.running()) {
    const int64_t want = ceil_div(r->num_computed_tokens, block_size);
    require_invariant(static_cast<int64_t>(r->block_ids.size()) == want, "KV_BLOCKS", [&] {
      return cat(r->external_id, " holds ", r->block_ids.size(), " blocks for ",
                 r->num_computed_tokens, " computed tokens");
    });
    for (int32_t b : r->block_ids) {
      require_invariant(b > 0 && b < pool.num_blocks(), "KV_BLOCKS",
                        [&] { return cat(r->external_id, " holds block ", b); });
      ++refs_[static_cast<size_t>(b)];
    }
  }
  s.waiting().for_each([&](const Request* r) {
    require_invariant(r->block_ids.empty() && r->num_computed_tokens == 0, "KV_BLOCKS", [&] {
      return cat(r->external_id, " waits holding ", r->block_ids.size(), " blocks");
    });
  });
}

// Preemption and prefix-cache counters against the sequences (finished and unfinished).
void EngineChecker::check_counters(const Scheduler& s) const {
  require_invariant(s.num_preemptions() == preemptions_, "PREEMPTION", [&] {
    return cat("engine ", engine_, " counts ", s.num_preemptions(), " preemptions, ", preemptions_,
               " reported");
  });
  int64_t prompts = admitted_prompts_;
  int64_t hits = admitted_hits_;
  const auto add = [&](const Request* r) {
    if (r->num_cached_tokens < 0) return;
    prompts += r->prompt_len;
    hits += r->num_cached_tokens;
  };
  for (const Request* r : s.running()) {
    if (!r->is_finished()) add(r);  // a seat holder was counted when it finished
  }
  s.waiting().for_each(add);
  const bool caching = s.kv().prefix_caching();
  const PrefixCacheCounters& k = s.kv().counters();
  require_invariant(
      k.queries == (caching ? prompts : 0) && k.hits == (caching ? hits : 0), "PREFIX_CACHE", [&] {
        return cat("engine ", engine_, " counts ", k.queries, " queried and ", k.hits,
                   " hit tokens; the admitted sequences have ", prompts, " and ", hits);
      });
}

}  // namespace llm
