// Per-iteration scheduler tables (in the manner of TensorRT-LLM's capacity-scheduler tests): small
// scripted workloads stepped one by one against the expected batch, running and waiting sets.
#include "core/engine_core.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

struct Finished {
  FinishReason reason;
  int64_t outputs;
  Timeline timeline;
  int64_t cached;
};

class Recorder final : public EngineObserver {
 public:
  void on_finished(const Request& r) override {
    finished[r.external_id] = {r.finish_reason, r.num_output_tokens, r.timeline,
                               r.num_cached_tokens};
  }
  void on_preempted(const Request& r) override { preempted.push_back(r.external_id); }
  std::map<std::string, Finished> finished;
  std::vector<std::string> preempted;
};

std::unique_ptr<Request> make(const std::string& id, int64_t prompt, int64_t outputs,
                              uint64_t salt) {
  auto r = std::make_unique<Request>();
  r->external_id = id;
  r->prompt_len = prompt;
  r->scripted_output_len = outputs;
  r->prompt_salt = salt;
  return r;
}

std::string ids(const std::vector<Request*>& rs) {
  std::string s;
  for (const Request* r : rs) s += r->external_id;
  return s;
}

std::string waiting_ids(const Scheduler& s) {
  std::string out;
  s.waiting().for_each([&out](const Request* r) { out += r->external_id; });
  return out;
}

std::string batch(const SchedulerOutput& b) {
  std::string s;
  for (const ScheduledSeq& q : b.seqs) {
    if (!s.empty()) s += " ";
    s += q.request->external_id + ":" + std::to_string(q.num_new_tokens);
  }
  return s;
}

struct StepRow {
  const char* batch;    // "A:6 B:2": tokens per sequence this step
  const char* running;  // after scheduling
  const char* waiting;  // after scheduling
};

void expect_steps(EngineCore& engine, SimClock& clock, const std::vector<StepRow>& rows,
                  bool idle_after = true) {
  for (size_t i = 0; i < rows.size(); ++i) {
    Nanos duration = 0;
    ASSERT_TRUE(engine.begin_step(&duration)) << "step " << i + 1;
    EXPECT_EQ(batch(engine.last_batch()), rows[i].batch) << "step " << i + 1;
    EXPECT_EQ(ids(engine.scheduler().running()), rows[i].running) << "step " << i + 1;
    EXPECT_EQ(waiting_ids(engine.scheduler()), rows[i].waiting) << "step " << i + 1;
    clock.set(clock.now() + duration);
    engine.end_step(clock.now());
  }
  if (!idle_after) return;
  Nanos duration = 0;
  EXPECT_FALSE(engine.begin_step(&duration)) << "expected the engine to be idle";
}

TEST(SchedulerTable, ChunkedPrefillBudgetAndSequenceCap) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 101;
  config.max_num_batched_tokens = 8;
  config.max_num_seqs = 2;
  config.max_model_len = 100;
  config.enable_prefix_caching = false;
  SimClock clock;
  testing::ScriptedBackend backend;
  Recorder rec;
  EngineCore engine(config, backend, clock, &rec);
  engine.add_request(make("A", 6, 3, 1));
  engine.add_request(make("B", 5, 2, 2));
  engine.add_request(make("C", 3, 1, 3));
  expect_steps(engine, clock,
               {
                   {"A:6 B:2", "AB", "C"},  // B gets a 2-token first chunk: budget spent
                   {"A:1 B:3", "AB", "C"},  // running first; C blocked by max_num_seqs
                   {"A:1 B:1", "AB", "C"},  // A's third and B's second token end both
                   {"C:3", "C", ""},
               });
  EXPECT_EQ(rec.finished.at("A").outputs, 3);
  EXPECT_EQ(rec.finished.at("B").outputs, 2);
  EXPECT_EQ(rec.finished.at("C").outputs, 1);
  // B's first token came from step 2 (its prefill finished there): TTFT spans two steps.
  EXPECT_EQ(rec.finished.at("B").timeline.scheduled, 0);
  EXPECT_EQ(rec.finished.at("B").timeline.first_token, 20);
  EXPECT_EQ(rec.finished.at("C").timeline.queued, 0);
  EXPECT_EQ(rec.finished.at("C").timeline.scheduled, 30);
  for (const auto& [id, f] : rec.finished) EXPECT_EQ(f.reason, FinishReason::kStop) << id;
}

TEST(SchedulerTable, DecodeThatCannotGrowPreemptsTheNewestAndItWaitsForItsWholeSequence) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 4;  // 3 usable
  config.max_num_batched_tokens = 16;
  config.max_num_seqs = 4;
  config.max_model_len = 8;
  config.enable_prefix_caching = false;
  SimClock clock;
  testing::ScriptedBackend backend;
  Recorder rec;
  EngineCore engine(config, backend, clock, &rec);
  engine.add_request(make("A", 4, 4, 1));
  engine.add_request(make("B", 4, 4, 2));
  expect_steps(engine, clock,
               {
                   {"A:4 B:4", "AB", ""},
                   {"A:1", "A", "B"},  // A takes the last block; B cannot grow: preempted
                   {"A:1", "A", "B"},  // B needs 2 blocks for its 5 tokens, 1 is free
                   {"A:1", "A", "B"},  // A finishes in this step
                   {"B:5", "B", ""},   // recompute prompt + its one output, then sample
                   {"B:1", "B", ""},
                   {"B:1", "B", ""},
               });
  EXPECT_EQ(rec.preempted, (std::vector<std::string>{"B"}));
  const Finished& b = rec.finished.at("B");
  EXPECT_EQ(b.outputs, 4);
  EXPECT_EQ(b.timeline.num_preemptions, 1);
  EXPECT_EQ(b.timeline.scheduled, 0);  // first scheduling only
  EXPECT_EQ(b.timeline.first_token, 10);
  EXPECT_EQ(b.timeline.last_token, 70);
  EXPECT_EQ(rec.finished.at("A").timeline.num_preemptions, 0);
}

TEST(SchedulerTable, PriorityVictimCanBeTheRequesterThenTheStepIsRescheduledAtOnce) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 3;  // 2 usable
  config.max_num_batched_tokens = 16;
  config.max_model_len = 8;
  config.enable_prefix_caching = false;
  config.policy = SchedulingPolicy::kPriority;
  SimClock clock;
  testing::ScriptedBackend backend;
  Recorder rec;
  EngineCore engine(config, backend, clock, &rec);
  auto low = make("R", 3, 4, 1);
  low->priority = 5;
  engine.add_request(std::move(low));
  expect_steps(engine, clock, {{"R:3", "R", ""}}, false);
  auto high = make("S", 4, 2, 2);
  high->priority = 0;
  engine.add_request(std::move(high));
  expect_steps(engine, clock,
               {
                   {"R:1 S:4", "RS", ""},
                   // R (first in the running set) needs a block and is itself the lowest
                   // priority: it is preempted with nothing scheduled, and the step is decided
                   // again at once, now giving S the freed block.
                   {"S:1", "S", "R"},
                   {"R:5", "R", ""},
                   {"R:1", "R", ""},
               });
  EXPECT_EQ(rec.preempted, (std::vector<std::string>{"R"}));
  EXPECT_EQ(rec.finished.at("R").outputs, 4);
  EXPECT_EQ(rec.finished.at("S").outputs, 2);
}

TEST(SchedulerTable, HeadOfLineBlockingNeverSkipsToASmallerRequest) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 5;  // 4 usable
  config.max_num_batched_tokens = 64;
  config.max_num_seqs = 8;
  config.max_model_len = 16;
  config.enable_prefix_caching = false;
  SimClock clock;
  testing::ScriptedBackend backend;
  Recorder rec;
  EngineCore engine(config, backend, clock, &rec);
  engine.add_request(make("A", 8, 2, 1));   // 2 blocks, 3 once its 2nd output... stays at 9 tokens
  engine.add_request(make("B", 12, 1, 2));  // 3 blocks: does not fit next to A
  engine.add_request(make("C", 2, 1, 3));   // would fit, but B is ahead
  expect_steps(engine, clock,
               {
                   {"A:8", "A", "BC"},
                   {"A:1", "A", "BC"},  // A grows into a third block
                   {"B:12 C:2", "BC", ""},
               });
  EXPECT_EQ(rec.finished.size(), 3u);
}

TEST(SchedulerTable, PromptTooLongFinishesWithErrorWithoutBlockingTheQueue) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 32;
  config.max_num_batched_tokens = 64;
  config.max_model_len = 16;
  SimClock clock;
  testing::ScriptedBackend backend;
  Recorder rec;
  EngineCore engine(config, backend, clock, &rec);
  engine.add_request(make("X", 16, 1, 1));
  engine.add_request(make("Y", 4, 1, 2));
  ASSERT_EQ(rec.finished.count("X"), 1u);
  EXPECT_EQ(rec.finished.at("X").reason, FinishReason::kError);
  EXPECT_EQ(rec.finished.at("X").timeline.scheduled, kNoTime);
  expect_steps(engine, clock, {{"Y:4", "Y", ""}});
  EXPECT_EQ(rec.finished.at("Y").reason, FinishReason::kStop);
}

TEST(SchedulerTable, MaxTokensEndsWithLengthAndContextLimitToo) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 32;
  config.max_model_len = 10;
  SimClock clock;
  testing::ScriptedBackend backend;
  Recorder rec;
  EngineCore engine(config, backend, clock, &rec);
  auto capped = make("M", 4, 5, 1);
  capped->params.max_tokens = 2;
  engine.add_request(std::move(capped));
  engine.add_request(make("L", 8, 50, 2));  // the context (10) ends it after 2 outputs
  auto equal = make("E", 4, 3, 3);
  equal->params.max_tokens = 3;  // the scripted stop coincides with max_tokens: length wins
  engine.add_request(std::move(equal));
  while (engine.step()) {
  }
  EXPECT_EQ(rec.finished.at("M").reason, FinishReason::kLength);
  EXPECT_EQ(rec.finished.at("M").outputs, 2);
  EXPECT_EQ(rec.finished.at("L").reason, FinishReason::kLength);
  EXPECT_EQ(rec.finished.at("L").outputs, 2);
  EXPECT_EQ(rec.finished.at("E").reason, FinishReason::kLength);
}

TEST(SchedulerTable, AbortFreesBlocksInAnyState) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 4;
  config.max_num_seqs = 1;
  config.max_model_len = 12;
  config.enable_prefix_caching = false;
  SimClock clock;
  testing::ScriptedBackend backend;
  Recorder rec;
  EngineCore engine(config, backend, clock, &rec);
  const uint64_t a = engine.add_request(make("A", 8, 5, 1));
  const uint64_t b = engine.add_request(make("B", 4, 5, 2));
  ASSERT_TRUE(engine.step());
  EXPECT_EQ(engine.scheduler().kv().pool().num_free(), 1);
  EXPECT_TRUE(engine.abort_request(b));  // waiting
  EXPECT_TRUE(engine.abort_request(a));  // running
  EXPECT_FALSE(engine.abort_request(a));
  EXPECT_EQ(engine.scheduler().kv().pool().num_free(), 3);
  EXPECT_FALSE(engine.has_unfinished());
  EXPECT_EQ(rec.finished.at("A").reason, FinishReason::kAbort);
  EXPECT_EQ(rec.finished.at("B").reason, FinishReason::kAbort);
  EXPECT_EQ(rec.finished.at("B").timeline.scheduled, kNoTime);
  EXPECT_EQ(rec.finished.at("A").outputs, 1);
}

TEST(SchedulerTable, ChildrenOfOneRequestShareItsPromptBlocksThroughThePrefixCache) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 64;
  config.max_model_len = 64;
  SimClock clock;
  testing::ScriptedBackend backend;
  Recorder rec;
  EngineCore engine(config, backend, clock, &rec);
  auto parent = make("P", 10, 2, 42);
  parent->params.n = 2;
  for (auto& child : fan_out(*parent)) engine.add_request(std::move(child));
  // The first child's two full prompt blocks are hashed when allocated, so the second child,
  // admitted later in the same step, already hits them.
  expect_steps(engine, clock, {{"0_P:10 1_P:2", "0_P1_P", ""}, {"0_P:1 1_P:1", "0_P1_P", ""}});
  EXPECT_EQ(rec.finished.at("0_P").cached, 0);
  EXPECT_EQ(rec.finished.at("1_P").cached, 8);
  EXPECT_EQ(engine.scheduler().kv().counters().queries, 20);
  EXPECT_EQ(engine.scheduler().kv().counters().hits, 8);
}

}  // namespace
}  // namespace llm
