// Liveness of the scheduler (core/scheduler.cpp): whatever the workload, an engine with a KV cache
// that validate() accepts finishes every request. The case that once failed: the priority policy
// without the whole-sequence admission gate, where siblings tied on (priority, arrival) preempted
// each other for ever (docs/scheduler.md).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "core/engine_core.h"
#include "core/testing/scheduler_table.h"

namespace llm {
namespace {

using testing::make;
using testing::table_config;
using testing::TableEngine;

// Small caches (at most twice the minimum), small budgets, chunked or not, a prefill threshold,
// few priorities and arrival instants so that ties are common, as with the n > 1 children of one
// request. Every request must finish well within the step bound.
void every_request_finishes(SchedulingPolicy policy, bool reserve_full_isl) {
  const int64_t max_model_len = *rc::gen::element<int64_t>(16, 32, 64);
  const int32_t min_blocks = static_cast<int32_t>(max_model_len / 4 + 1);
  SchedulerConfig config =
      table_config(*rc::gen::inRange(min_blocks, 2 * min_blocks + 1),
                   *rc::gen::inRange<int64_t>(1, 2 * max_model_len), max_model_len);
  config.enable_chunked_prefill = *rc::gen::arbitrary<bool>();
  if (!config.enable_chunked_prefill) config.max_num_batched_tokens += max_model_len;
  config.long_prefill_token_threshold = *rc::gen::element<int64_t>(0, 1, 4, 16);
  config.enable_prefix_caching = *rc::gen::arbitrary<bool>();
  config.max_num_seqs = *rc::gen::inRange(1, 16);
  config.policy = policy;
  config.scheduler_reserve_full_isl = reserve_full_isl;
  RC_PRE(validate(config) == std::string());

  TableEngine t(config);
  const int n = *rc::gen::inRange(1, 24);
  int added = 0;
  int64_t steps = 0;
  for (int instant = 0; added < n; ++instant) {
    const int burst = *rc::gen::inRange(1, n - added + 1);
    for (int k = 0; k < burst; ++k, ++added) {
      const int64_t prompt = *rc::gen::inRange<int64_t>(1, max_model_len);
      const int64_t outputs = *rc::gen::inRange<int64_t>(1, max_model_len);
      const uint64_t salt = *rc::gen::inRange<uint64_t>(0, 3);
      const int32_t priority = *rc::gen::inRange(0, 2);
      t.engine.add_request(make("r" + std::to_string(added), prompt, outputs, salt, priority));
    }
    const int between = *rc::gen::inRange(0, 4);
    Nanos duration = 0;
    for (int s = 0; s < between && t.engine.begin_step(&duration); ++s, ++steps) {
      t.clock.set(t.clock.now() + duration);
      t.engine.end_step(t.clock.now());
    }
  }
  constexpr int64_t kStepBound = 100000;
  Nanos duration = 0;
  while (steps < kStepBound && t.engine.begin_step(&duration)) {
    t.clock.set(t.clock.now() + duration);
    t.engine.end_step(t.clock.now());
    ++steps;
  }
  RC_ASSERT(static_cast<int>(t.rec.finished.size()) == n);
}

RC_GTEST_PROP(SchedulerLiveness, EveryRequestFinishesUnderEitherPolicyWithOrWithoutTheGate, ()) {
  every_request_finishes(*rc::gen::element(SchedulingPolicy::kFcfs, SchedulingPolicy::kPriority),
                         *rc::gen::arbitrary<bool>());
}

// The configuration that livelocked, alone, so that each run tries it a hundred times.
RC_GTEST_PROP(SchedulerLiveness, EveryRequestFinishesUnderThePriorityPolicyWithoutTheGate, ()) {
  every_request_finishes(SchedulingPolicy::kPriority, false);
}

}  // namespace
}  // namespace llm
