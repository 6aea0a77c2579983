// The engine step loop: requests that can never run, stop checks (EOS and stop ids before length),
// aborts in any state. The scheduler's own per-step tables are in core/scheduler_test.cpp.
#include "core/engine_core.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/testing/scheduler_table.h"
#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

using testing::make;
using testing::table_config;
using testing::TableEngine;

TEST(EngineCore, PromptTooLongFinishesWithErrorWithoutBlockingTheQueue) {
  TableEngine t(table_config(32, 64, 16));
  t.engine.add_request(make("X", 16, 1, 1));
  auto capped = make("Z", 16, 1, 3);
  capped->params.max_tokens = 4;  // max_tokens does not make room the context lacks
  t.engine.add_request(std::move(capped));
  t.engine.add_request(make("Y", 4, 1, 2));
  for (const char* id : {"X", "Z"}) {
    ASSERT_EQ(t.rec.finished.count(id), 1u) << id;
    EXPECT_EQ(t.finished(id).reason, FinishReason::kError) << id;
    EXPECT_EQ(t.finished(id).timeline.scheduled, kNoTime) << id;
  }
  t.expect({{"Y:4", "Y", ""}});
  EXPECT_EQ(t.finished("Y").reason, FinishReason::kStop);
}

TEST(EngineCore, MaxTokensEndsWithLengthAndContextLimitToo) {
  TableEngine t(table_config(32, 8192, 10));
  auto capped = make("M", 4, 5, 1);
  capped->params.max_tokens = 2;
  t.engine.add_request(std::move(capped));
  t.engine.add_request(make("L", 8, 50, 2));  // the context (10) ends it after 2 outputs
  auto roomy = make("R", 8, 50, 4);
  roomy->params.max_tokens = 5;  // more than the context's room: the context still ends it
  t.engine.add_request(std::move(roomy));
  while (t.engine.step()) {
  }
  EXPECT_EQ(t.finished("M").reason, FinishReason::kLength);
  EXPECT_EQ(t.finished("M").outputs, 2);
  EXPECT_EQ(t.finished("L").reason, FinishReason::kLength);
  EXPECT_EQ(t.finished("L").outputs, 2);
  EXPECT_EQ(t.finished("R").reason, FinishReason::kLength);
  EXPECT_EQ(t.finished("R").outputs, 2);
}

// vLLM checks EOS and the stop token ids before the length limits: the token that reaches
// max_tokens (or fills the context) finishes the sequence as "stop" when it is one of them. Among
// the first min_tokens tokens neither ends anything (vLLM masks them there; this backend does not,
// so the engine's check is what is tested); the length limits still do.
TEST(EngineCore, EosAndStopIdsAreCheckedBeforeTheLengthLimits) {
  struct Case {
    const char* what;
    int64_t prompt, scripted, max_tokens;
    std::vector<int32_t> stop_ids;
    FinishReason reason;
    int64_t outputs;
    int32_t stop_token;
    int64_t min_tokens = 0;
  };
  const Case cases[] = {
      {"EOS is the max_tokens-th token", 4, 3, 3, {}, FinishReason::kStop, 3, -1},
      {"EOS fills the context (10)", 8, 2, -1, {}, FinishReason::kStop, 2, -1},
      {"a stop id is the max_tokens-th token", 4, 9, 1, {7}, FinishReason::kStop, 1, 7},
      {"max_tokens comes before EOS", 4, 3, 2, {}, FinishReason::kLength, 2, -1},
      {"the context ends before EOS", 8, 3, -1, {}, FinishReason::kLength, 2, -1},
      {"EOS as the min_tokens-th token ends nothing", 4, 3, -1, {}, FinishReason::kStop, 4, -1, 3},
      {"EOS after min_tokens ends it", 4, 3, -1, {}, FinishReason::kStop, 3, -1, 2},
      {"a stop id within min_tokens ends nothing", 4, 9, -1, {7}, FinishReason::kStop, 3, 7, 2},
      {"min_tokens past max_tokens: the length ends it",
       4,
       9,
       2,
       {},
       FinishReason::kLength,
       2,
       -1,
       5},
      {"min_tokens past the context: the context ends it",
       8,
       1,
       -1,
       {},
       FinishReason::kLength,
       2,
       -1,
       5},
  };
  // What the one request of a case ended with, its stop token included.
  struct LastFinished final : EngineObserver {
    void on_finished(const Request& r) override { last = r; }
    Request last;
  };
  for (const Case& c : cases) {
    SimClock clock;
    testing::ScriptedBackend backend;  // token 7, then EOS (0) as the scripted-th token
    LastFinished seen;
    EngineCore engine(table_config(32, 8192, 10), backend, clock, &seen);
    auto r = make("S", c.prompt, c.scripted, 1);
    r->params.max_tokens = c.max_tokens;
    r->params.stop_token_ids = c.stop_ids;
    r->params.min_tokens = c.min_tokens;
    engine.add_request(std::move(r));
    while (engine.step()) {
    }
    EXPECT_EQ(seen.last.finish_reason, c.reason) << c.what;
    EXPECT_EQ(seen.last.num_output_tokens, c.outputs) << c.what;
    EXPECT_EQ(seen.last.stop_token, c.stop_token) << c.what;
  }
}

TEST(EngineCore, AbortFreesBlocksInAnyState) {
  SchedulerConfig config = table_config(4, 8192, 12);
  config.max_num_seqs = 1;
  TableEngine t(config);
  EngineCore& engine = t.engine;
  const uint64_t a = engine.add_request(make("A", 8, 5, 1));
  const uint64_t b = engine.add_request(make("B", 4, 5, 2));
  ASSERT_TRUE(engine.step());
  EXPECT_EQ(engine.scheduler().kv().pool().num_free(), 1);
  EXPECT_TRUE(engine.abort_request(b));  // waiting
  EXPECT_TRUE(engine.abort_request(a));  // running
  EXPECT_FALSE(engine.abort_request(a));
  EXPECT_EQ(engine.scheduler().kv().pool().num_free(), 3);
  EXPECT_FALSE(engine.has_unfinished());
  EXPECT_EQ(t.finished("A").reason, FinishReason::kAbort);
  EXPECT_EQ(t.finished("B").reason, FinishReason::kAbort);
  EXPECT_EQ(t.finished("B").timeline.scheduled, kNoTime);
  EXPECT_EQ(t.finished("A").outputs, 1);
}

// Async scheduling, vLLM's default: step k+1 is decided when step k begins. A request that arrives
// while step 1 runs is decided at step 2 and first runs at step 3; without async it runs at step 2.
TEST(EngineCore, AsyncSchedulingRunsARequestThatArrivedDuringAStepOneStepLater) {
  for (const bool async : {false, true}) {
    SCOPED_TRACE(async ? "async" : "sync");
    SchedulerConfig config = table_config(64, 64, 64);
    config.async_scheduling = async;
    TableEngine t(config);
    t.engine.add_request(make("A", 4, 4, 1));
    t.expect({{"A:4", "A", ""}}, false);  // step 1 from 0 to 10 ns; B arrives at its end
    t.engine.add_request(make("B", 4, 2, 2));
    if (async) {
      // ... and both hold their seats for a step after their EOS (the last row).
      t.expect(
          {{"A:1", "A", "B"}, {"A:1 B:4", "AB", ""}, {"A:1 B:1", "AB", ""}, {"A:1 B:1", "AB", ""}});
    } else {
      t.expect({{"A:1 B:4", "AB", ""}, {"A:1 B:1", "AB", ""}, {"A:1", "A", ""}});
    }
    // B is decided at 10 either way (async: when step 2 began); its first token comes one step
    // later under async, so its prefill time is a step longer and its queue time the same.
    const Timeline& b = t.finished("B").timeline;
    EXPECT_EQ(b.scheduled - b.queued, 0);
    EXPECT_EQ(b.first_token - b.scheduled, async ? 20 : 10);
  }
}

// Under async scheduling a sequence that stops on a sampled token was already in the next step's
// decision: it holds its seat (a decode token of the budget, its KV blocks) through that step,
// though its finish is seen at once. A length limit is known in advance and holds nothing.
TEST(EngineCore, AsyncSchedulingKeepsTheSeatOfASampledStopOneStep) {
  SchedulerConfig config = table_config(64, 64, 64);
  config.async_scheduling = true;
  TableEngine t(config);
  t.engine.add_request(make("A", 4, 2, 1));  // the scripted model stops A with EOS at token 2
  auto len = make("L", 4, 100, 2);
  len->params.max_tokens = 2;  // L stops at its limit instead
  t.engine.add_request(std::move(len));
  t.expect({{"A:4 L:4", "AL", ""}, {"A:1 L:1", "AL", ""}}, false);
  EXPECT_EQ(t.finished("A").reason, FinishReason::kStop);  // seen at the end of step 2
  EXPECT_EQ(t.finished("A").timeline.finished, 20);
  EXPECT_EQ(t.finished("L").reason, FinishReason::kLength);
  EXPECT_EQ(t.engine.state().num_running, 0);
  EXPECT_EQ(t.engine.state().num_seat_holders, 1);  // A
  EXPECT_LT(t.engine.state().free_blocks, t.engine.state().usable_blocks);
  t.expect({{"A:1", "A", ""}});  // A's held step, its output unused; then A has left
  EXPECT_EQ(t.engine.state().num_seat_holders, 0);
  EXPECT_EQ(t.engine.state().free_blocks, t.engine.state().usable_blocks);
  EXPECT_EQ(t.finished("A").outputs, 2);
}

// Waiting-queue parking (core/parked_requests.h) changes what the engine holds, never what it
// does: an engine parking past a window of 1 and one that never parks, given the same requests,
// steps and aborts, schedule the same batches and finish the same sequences at the same times.
RC_GTEST_PROP(EngineCore, ParkingWaitingRequestsChangesNoStepAndNoOutcome, ()) {
  SchedulerConfig config = table_config(*rc::gen::inRange(8, 64), *rc::gen::inRange(8, 64), 64);
  config.enable_prefix_caching = *rc::gen::arbitrary<bool>();
  config.max_num_seqs = *rc::gen::inRange(1, 8);
  struct Side {
    SimClock clock;
    testing::ScriptedBackend backend;
    testing::Recorder rec;
    EngineCore engine;
    Side(const SchedulerConfig& c, size_t window) : engine(c, backend, clock, &rec, window) {}
  };
  Side parking(config, 1), plain(config, 0);
  uint64_t added = 0;
  const int ops = *rc::gen::inRange(1, 120);
  for (int i = 0; i < ops; ++i) {
    const int op = *rc::gen::inRange(0, 10);
    if (op < 5) {
      const std::string id = "r" + std::to_string(added++);
      const int64_t prompt = *rc::gen::inRange(1, 40);
      const int64_t outputs = *rc::gen::inRange(1, 12);
      const uint64_t salt = *rc::gen::inRange<uint64_t>(0, 3);
      parking.engine.add_request(make(id, prompt, outputs, salt));
      plain.engine.add_request(make(id, prompt, outputs, salt));
    } else if (op == 5 && added > 0) {
      const uint64_t id = *rc::gen::inRange<uint64_t>(0, added);
      RC_ASSERT(parking.engine.abort_request(id) == plain.engine.abort_request(id));
    } else {
      std::string batches[2];
      for (int k = 0; k < 2; ++k) {
        Side& side = k == 0 ? parking : plain;
        Nanos duration = 0;
        if (side.engine.begin_step(&duration)) {
          batches[k] = testing::batch(side.engine.last_batch());  // before it ends: it points
          side.clock.set(side.clock.now() + duration);            // at requests that may finish
          side.engine.end_step(side.clock.now());
        }
      }
      RC_ASSERT(batches[0] == batches[1]);
    }
    RC_ASSERT(testing::waiting_ids(parking.engine.scheduler()) ==
              testing::waiting_ids(plain.engine.scheduler()));
    RC_ASSERT(parking.engine.scheduler().num_waiting() == plain.engine.scheduler().num_waiting());
  }
  RC_ASSERT(parking.rec.finished.size() == plain.rec.finished.size());
  for (const auto& [id, f] : plain.rec.finished) {
    const testing::Finished& g = parking.rec.finished.at(id);
    RC_ASSERT(g.reason == f.reason);
    RC_ASSERT(g.outputs == f.outputs);
    RC_ASSERT(g.timeline.finished == f.timeline.finished);
    RC_ASSERT(g.timeline.first_token == f.timeline.first_token);
    RC_ASSERT(g.cached == f.cached);
  }
  RC_ASSERT(parking.rec.preempted == plain.rec.preempted);
}

}  // namespace
}  // namespace llm
