// Per-iteration scheduler tables (in the manner of TensorRT-LLM's capacity-scheduler tests): small
// scripted workloads stepped one by one against the expected batch, running and waiting sets.
// They pin down the rules of docs/scheduler.md (core/scheduler.cpp): budgets, chunked prefill on
// and off, the admission gate, head-of-line blocking, preemption and the prefix-cache counters.
#include "core/scheduler.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/testing/scheduler_table.h"

namespace llm {
namespace {

using testing::Finished;
using testing::make;
using testing::StepRow;
using testing::table_config;
using testing::TableEngine;

using Ids = std::vector<std::string>;

TEST(SchedulerTable, ChunkedPrefillBudgetAndSequenceCap) {
  SchedulerConfig config = table_config(101, 8, 100);
  config.max_num_seqs = 2;
  TableEngine t(config);
  t.engine.add_request(make("A", 6, 3, 1));
  t.engine.add_request(make("B", 5, 2, 2));
  t.engine.add_request(make("C", 3, 1, 3));
  t.expect({
      {"A:6 B:2", "AB", "C"},  // B gets a 2-token first chunk: budget spent
      {"A:1 B:3", "AB", "C"},  // running first; C blocked by max_num_seqs
      {"A:1 B:1", "AB", "C"},  // A's third and B's second token end both
      {"C:3", "C", ""},
  });
  EXPECT_EQ(t.finished("A").outputs, 3);
  EXPECT_EQ(t.finished("B").outputs, 2);
  EXPECT_EQ(t.finished("C").outputs, 1);
  // B's first token came from step 2 (its prefill finished there): TTFT spans two steps.
  EXPECT_EQ(t.finished("B").timeline.scheduled, 0);
  EXPECT_EQ(t.finished("B").timeline.first_token, 20);
  EXPECT_EQ(t.finished("C").timeline.queued, 0);
  EXPECT_EQ(t.finished("C").timeline.scheduled, 30);
  for (const auto& [id, f] : t.rec.finished) EXPECT_EQ(f.reason, FinishReason::kStop) << id;
}

// Chunked prefill off: budget 8 = max_model_len (the smallest budget validate() accepts), KV
// plentiful, so only the token budget decides.
SchedulerConfig unchunked_config() {
  SchedulerConfig config = table_config(33, 8, 8);
  config.max_num_seqs = 8;
  config.enable_chunked_prefill = false;
  return config;
}

TEST(SchedulerTable, WithoutChunkedPrefillAPromptThatExactlyFillsTheRemainingBudgetIsAdmitted) {
  ASSERT_EQ(validate(unchunked_config()), "");
  TableEngine t(unchunked_config());
  t.engine.add_request(make("A", 3, 2, 1));
  t.engine.add_request(make("B", 5, 1, 2));  // exactly the 5 tokens A leaves
  t.engine.add_request(make("C", 1, 1, 3));
  t.expect({
      {"A:3 B:5", "AB", "C"},  // the budget is spent: C waits for the next step
      {"A:1 C:1", "AC", ""},
  });
  EXPECT_EQ(t.finished("B").timeline.scheduled, 0);
  EXPECT_EQ(t.finished("B").outputs, 1);
}

TEST(SchedulerTable, WithoutChunkedPrefillAPromptOneTokenOverTheBudgetWaitsWholeAndBlocksTheQueue) {
  TableEngine t(unchunked_config());
  t.engine.add_request(make("A", 3, 2, 1));
  t.engine.add_request(
      make("B", 6, 1, 2));  // one more than the 5 tokens A leaves: no partial chunk
  t.engine.add_request(make("C", 1, 1, 3));  // would fit, but B is ahead
  t.expect({
      {"A:3", "A", "BC"}, {"A:1 B:6 C:1", "ABC", ""},  // B's whole prompt in one step
  });
  EXPECT_EQ(t.finished("B").timeline.scheduled, 10);
  EXPECT_EQ(t.finished("B").timeline.first_token, 20);
}

TEST(SchedulerTable, WithoutChunkedPrefillOnlyTheUncachedPromptTokensCountAgainstTheBudget) {
  SchedulerConfig config = unchunked_config();
  config.enable_prefix_caching = true;
  TableEngine t(config);
  t.engine.add_request(make("P", 5, 1, 1));  // leaves its first block cached
  t.expect({{"P:5", "P", ""}});
  t.engine.add_request(make("A", 3, 2, 2));
  t.engine.add_request(make("Q", 7, 1, 1));  // 7 tokens, 4 cached: 3 to compute, 5 left
  t.expect({
      {"A:3 Q:3", "AQ", ""},
      {"A:1", "A", ""},
  });
  EXPECT_EQ(t.finished("Q").cached, 4);
}

// Chunked prefill off with long_prefill_token_threshold 2,048: as in vLLM, a prompt is first capped
// at the threshold, and only that capped chunk must fit in the budget left.
TEST(SchedulerTable, WithoutChunkedPrefillTheThresholdCapsAPromptBeforeItIsComparedWithTheBudget) {
  SchedulerConfig config = table_config(4096, 8192, 8192);
  config.max_num_seqs = 8;
  config.enable_chunked_prefill = false;
  config.long_prefill_token_threshold = 2048;
  ASSERT_EQ(validate(config), "");
  TableEngine t(config);
  t.engine.add_request(make("A", 2048, 1, 1));
  t.engine.add_request(make("B", 2048, 1, 2));
  t.engine.add_request(make("C", 96, 1, 3));
  t.engine.add_request(make("D", 6000, 1, 4));  // 4,000 budget left: admitted for 2,048
  t.engine.add_request(make("E", 3000, 1, 5));  // 1,952 left: its 2,048-token chunk waits
  t.expect({
      {"A:2048 B:2048 C:96 D:2048", "ABCD", "E"},
      {"D:2048 E:2048", "DE", ""},
      {"D:1904 E:952", "DE", ""},
  });
  EXPECT_EQ(t.finished("D").timeline.scheduled, 0);
  EXPECT_EQ(t.finished("D").outputs, 1);
}

// Room for 3 blocks of 4 tokens, a context of 8 (2 blocks): two requests fill the cache.
SchedulerConfig three_usable_blocks() {
  SchedulerConfig config = table_config(4, 16, 8);
  config.max_num_seqs = 4;
  return config;
}

TEST(SchedulerTable, DecodeThatCannotGrowPreemptsTheNewestAndItWaitsForItsWholeSequence) {
  TableEngine t(three_usable_blocks());
  t.engine.add_request(make("A", 4, 4, 1));
  t.engine.add_request(make("B", 4, 4, 2));
  t.expect({
      {"A:4 B:4", "AB", ""},
      {"A:1", "A", "B"},  // A takes the last block; B cannot grow: preempted
      {"A:1", "A", "B"},  // B needs 2 blocks for its 5 tokens, 1 is free
      {"A:1", "A", "B"},  // A finishes in this step
      {"B:5", "B", ""},   // recompute prompt + its one output, then sample
      {"B:1", "B", ""},
      {"B:1", "B", ""},
  });
  EXPECT_EQ(t.rec.preempted, Ids{"B"});
  const Finished& b = t.finished("B");
  EXPECT_EQ(b.outputs, 4);
  EXPECT_EQ(b.timeline.num_preemptions, 1);
  EXPECT_EQ(b.timeline.scheduled, 0);  // first scheduling only
  EXPECT_EQ(b.timeline.first_token, 10);
  EXPECT_EQ(b.timeline.last_token, 70);
  EXPECT_EQ(t.finished("A").timeline.num_preemptions, 0);
}

TEST(SchedulerTable, APreemptedRequestGoesBackToTheFrontOfTheWaitingQueue) {
  TableEngine t(three_usable_blocks());
  t.engine.add_request(make("A", 4, 3, 1));
  t.engine.add_request(make("B", 4, 2, 2));
  t.engine.add_request(make("C", 5, 1, 3));  // needs 2 blocks, 1 is free: waits
  t.expect({
      {"A:4 B:4", "AB", "C"},
      {"A:1", "A", "BC"},  // B preempted: ahead of C, which queued before it ran
      {"A:1", "A", "BC"},  // A finishes; B (2 blocks) does not fit yet
      {"B:5", "B", "C"},   // B first; C (2 blocks) does not fit beside it
      {"C:5", "C", ""},
  });
  EXPECT_EQ(t.rec.preempted, Ids{"B"});
  EXPECT_EQ(t.finished("C").timeline.scheduled, 40);
}

TEST(SchedulerTable, NothingIsAdmittedInAStepThatPreempted) {
  SchedulerConfig config = three_usable_blocks();
  config.policy = SchedulingPolicy::kPriority;
  TableEngine t(config);
  t.engine.add_request(make("R", 4, 3, 1, /*priority=*/5));
  auto later = make("L", 4, 2, 2, /*priority=*/5);
  later->timeline.arrival = 1;  // so that L, not R, is the victim
  t.engine.add_request(std::move(later));
  t.expect({{"R:4 L:4", "RL", ""}}, false);
  t.engine.add_request(make("S", 3, 1, 3, /*priority=*/0));  // one block, ahead of L in the queue
  t.expect({
      // R takes the last block; L cannot grow and is the victim. Its freed block would hold S,
      // but a step that preempted admits nothing.
      {"R:1", "R", "SL"},
      {"R:1 S:3", "RS", "L"},
      {"L:5", "L", ""},
  });
  EXPECT_EQ(t.rec.preempted, Ids{"L"});
  EXPECT_EQ(t.finished("S").timeline.scheduled, 20);
}

// vLLM's victim: FCFS pops the running set's tail; priority takes max() over (priority, arrival),
// which among equals is the first in running order, here the requester's predecessor A. Without
// the whole-sequence gate, ties go by the waiting queue's order (the largest request id), as that
// rule livelocks there (docs/scheduler.md): B, the requester itself, is the victim.
TEST(SchedulerTable, PriorityVictimTiesGoByRunningOrderWithTheGateAndByQueueOrderWithout) {
  struct Case {
    const char* name;
    SchedulingPolicy policy;
    bool reserve_full_isl;
    StepRow second_step;
    const char* preempted;
  };
  const std::vector<Case> cases = {
      // A takes the last block; B cannot grow and is the tail: B is preempted.
      {"fcfs", SchedulingPolicy::kFcfs, true, {"A:1", "A", "B"}, "B"},
      // A takes the last block; B cannot grow; A and B tie on (5, 0), so A, first in running
      // order, is the victim. It gives back its token and blocks, and B grows into them.
      {"priority", SchedulingPolicy::kPriority, true, {"B:1", "B", "A"}, "A"},
      // The same without the gate: B, last in the queue's (priority, arrival, id) order, is the
      // victim; it preempts itself and A keeps its token.
      {"priority, no gate", SchedulingPolicy::kPriority, false, {"A:1", "A", "B"}, "B"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SchedulerConfig config = three_usable_blocks();
    config.policy = c.policy;
    config.scheduler_reserve_full_isl = c.reserve_full_isl;
    TableEngine t(config);
    t.engine.add_request(make("A", 4, 4, 1, /*priority=*/5));
    t.engine.add_request(make("B", 4, 4, 2, /*priority=*/5));
    t.expect({{"A:4 B:4", "AB", ""}, c.second_step}, false);
    EXPECT_EQ(t.rec.preempted, Ids{c.preempted});
  }
}

TEST(SchedulerTable, APreemptedRequestIsNotCountedAgainInThePrefixCacheCountersWhenReadmitted) {
  SchedulerConfig config = three_usable_blocks();
  config.enable_prefix_caching = true;
  TableEngine t(config);
  t.engine.add_request(make("A", 4, 4, 1));
  t.engine.add_request(make("B", 4, 4, 2));
  t.expect({
      {"A:4 B:4", "AB", ""},  // queries 4 + 4, no hits
      {"A:1", "A", "B"},      // B preempted; its full block stays cached
      {"A:1", "A", "B"},      // B hits it, but needs 2 free blocks: 1 is free
      {"A:1", "A", "B"},      // A finishes
      {"B:1", "B", ""},       // B resumes on its cached block: 1 token to compute
      {"B:1", "B", ""},
      {"B:1", "B", ""},
  });
  EXPECT_EQ(t.rec.preempted, Ids{"B"});
  // Each new request counted once, at its first admission; B's resumption hit is not counted.
  EXPECT_EQ(t.counters().queries, 8);
  EXPECT_EQ(t.counters().hits, 0);
  EXPECT_EQ(t.finished("B").cached, 0);
  EXPECT_EQ(t.finished("B").outputs, 4);
}

TEST(SchedulerTable, ANewRequestIsCountedInThePrefixCacheCountersOnlyWhenAdmitted) {
  SchedulerConfig config = table_config(5, 64, 16);  // 4 usable blocks
  config.enable_prefix_caching = true;
  TableEngine t(config);
  t.engine.add_request(make("A", 8, 2, 1));
  t.engine.add_request(make("B", 12, 1, 2));  // looked up in steps 1 and 2, refused by the gate
  t.expect({
      {"A:8", "A", "B"},
      {"A:1", "A", "B"},
      {"B:12", "B", ""},
  });
  EXPECT_EQ(t.counters().queries, 8 + 12);
  EXPECT_EQ(t.counters().hits, 0);
}

TEST(SchedulerTable, AdmissionCountsCachedPrefixBlocksInTheFreeQueueAsTakenFromIt) {
  SchedulerConfig config = table_config(5, 64, 16);  // 4 usable blocks
  config.long_prefill_token_threshold = 4;  // chunks of 4: a first chunk fits where the whole won't
  config.enable_prefix_caching = true;
  TableEngine t(config);
  t.engine.add_request(make("A", 8, 1, 1));
  t.expect({{"A:4", "A", ""}, {"A:4", "A", ""}});
  // A's two full blocks are free but cached (free queue: two empty blocks, then A's).
  ASSERT_EQ(t.engine.scheduler().kv().pool().num_free(), 4);
  t.engine.add_request(make("H", 8, 1, 2));
  t.engine.add_request(make("W", 15, 1, 1));  // hits A's 2 blocks; needs 4 blocks in all
  t.expect({
      // H takes one free block, 3 remain: W needs 2 new ones plus its 2 hit blocks, which leave
      // the free queue too. Not counting those, W would be admitted.
      {"H:4", "H", "W"},
      {"H:4", "H", "W"},  // H finishes; its 2 blocks return behind A's
      {"W:4", "W", ""},   // 8 tokens hit, 4 free blocks: W fits
      {"W:3", "W", ""},
  });
  EXPECT_EQ(t.finished("W").cached, 8);
  EXPECT_EQ(t.finished("W").timeline.scheduled, 40);
}

TEST(SchedulerTable, PriorityVictimCanBeTheRequesterThenTheStepIsRescheduledAtOnce) {
  SchedulerConfig config = table_config(3, 16, 8);  // 2 usable blocks
  config.policy = SchedulingPolicy::kPriority;
  TableEngine t(config);
  t.engine.add_request(make("R", 3, 4, 1, /*priority=*/5));
  t.expect({{"R:3", "R", ""}}, false);
  t.engine.add_request(make("S", 4, 2, 2, /*priority=*/0));
  t.expect({
      {"R:1 S:4", "RS", ""},
      // R (first in the running set) needs a block and is itself the lowest priority: it is
      // preempted with nothing scheduled, and the step is decided again at once, now giving S
      // the freed block.
      {"S:1", "S", "R"},
      {"R:5", "R", ""},
      {"R:1", "R", ""},
  });
  EXPECT_EQ(t.rec.preempted, Ids{"R"});
  EXPECT_EQ(t.finished("R").outputs, 4);
  EXPECT_EQ(t.finished("S").outputs, 2);
}

TEST(SchedulerTable, HeadOfLineBlockingNeverSkipsToASmallerRequest) {
  SchedulerConfig config = table_config(5, 64, 16);  // 4 usable blocks
  config.max_num_seqs = 8;
  TableEngine t(config);
  t.engine.add_request(make("A", 8, 2, 1));  // 2 blocks, 3 once its 2nd output... stays at 9 tokens
  t.engine.add_request(make("B", 12, 1, 2));  // 3 blocks: does not fit next to A
  t.engine.add_request(make("C", 2, 1, 3));   // would fit, but B is ahead
  t.expect({
      {"A:8", "A", "BC"},
      {"A:1", "A", "BC"},  // A grows into a third block
      {"B:12 C:2", "BC", ""},
  });
  EXPECT_EQ(t.rec.finished.size(), 3u);
}

TEST(SchedulerTable, ChildrenOfOneRequestShareItsPromptBlocksThroughThePrefixCache) {
  SchedulerConfig config = table_config(64, 8192, 64);
  config.enable_prefix_caching = true;
  TableEngine t(config);
  auto parent = make("P", 10, 2, 42);
  parent->params.n = 2;
  for (auto& child : fan_out(*parent)) t.engine.add_request(std::move(child));
  // The first child's two full prompt blocks are hashed when allocated, so the second child,
  // admitted later in the same step, already hits them.
  t.expect({{"0_P:10 1_P:2", "0_P1_P", ""}, {"0_P:1 1_P:1", "0_P1_P", ""}});
  EXPECT_EQ(t.finished("0_P").cached, 0);
  EXPECT_EQ(t.finished("1_P").cached, 8);
  EXPECT_EQ(t.counters().queries, 20);
  EXPECT_EQ(t.counters().hits, 8);
}

// vLLM's max_num_active_seqs: admission stops at that many running requests although
// max_num_seqs has seats left; nobody is preempted for it.
TEST(SchedulerTable, MaxNumActiveSeqsCapsAdmissionBelowMaxNumSeqs) {
  struct Case {
    int32_t max_num_active_seqs;
    std::vector<StepRow> rows;
  };
  const Case cases[] = {
      {2,
       {
           {"A:4 B:4", "AB", "C"},  // C waits: 2 running, though max_num_seqs is 4
           {"A:1 B:1", "AB", "C"},  // A finishes
           {"B:1 C:4", "BC", ""},   // a seat is free: C is admitted
       }},
      {0,  // unset: max_num_seqs alone
       {
           {"A:4 B:4 C:4", "ABC", ""},
           {"A:1 B:1", "AB", ""},
           {"B:1", "B", ""},
       }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.max_num_active_seqs);
    SchedulerConfig config = table_config(101, 64, 100);
    config.max_num_seqs = 4;
    config.max_num_active_seqs = c.max_num_active_seqs;
    ASSERT_EQ(validate(config), "");
    TableEngine t(config);
    t.engine.add_request(make("A", 4, 2, 1));
    t.engine.add_request(make("B", 4, 3, 2));
    t.engine.add_request(make("C", 4, 1, 3));
    t.expect(c.rows);
    EXPECT_EQ(t.rec.finished.size(), 3u);
    EXPECT_TRUE(t.rec.preempted.empty());
  }
}

TEST(SchedulerTable, MaxNumActiveSeqsMustBeAtMostMaxNumSeqs) {
  SchedulerConfig config = table_config(101, 64, 100);
  config.max_num_seqs = 4;
  config.max_num_active_seqs = 5;
  EXPECT_EQ(validate(config), "--max-num-active-seqs (5) must be at most --max-num-seqs (4)");
  config.max_num_active_seqs = 4;
  EXPECT_EQ(validate(config), "");
}

// vLLM's scheduler_reserve_full_isl: 4 usable blocks of 4 tokens, a budget of 12. A (8 tokens)
// holds 2 blocks; B (12 tokens, 3 blocks) does not fit whole next to it.
TEST(SchedulerTable, TheFullPromptGateAdmitsOnlyWhatFitsWholeAndWithoutItTheChunkThrashes) {
  struct Case {
    bool reserve_full_isl;
    std::vector<StepRow> rows;
    Ids preempted;
  };
  const Case cases[] = {
      {true,
       {
           {"A:8", "A", "B"},  // B's whole prompt needs 3 blocks, 2 are free: it waits
           {"A:1", "A", "B"},  // A takes a third block and finishes
           {"B:12", "B", ""},
       },
       {}},
      {false,
       {
           {"A:8 B:4", "AB", ""},  // B's first chunk needs only 1 block: admitted
           {"A:1", "A", "B"},      // A grows; B's next chunk finds no block: B preempts itself
           {"B:12", "B", ""},      // and recomputes its prompt from the start
       },
       {"B"}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reserve_full_isl);
    SchedulerConfig config = table_config(5, 12, 16);
    config.max_num_seqs = 4;
    config.scheduler_reserve_full_isl = c.reserve_full_isl;
    TableEngine t(config);
    t.engine.add_request(make("A", 8, 2, 1));
    t.engine.add_request(make("B", 12, 1, 2));
    t.expect(c.rows);
    EXPECT_EQ(t.rec.preempted, c.preempted);
    EXPECT_EQ(t.rec.finished.size(), 2u);
  }
}

}  // namespace
}  // namespace llm
