#include "telemetry/engine_trace_recorder.h"

#include <gtest/gtest.h>

#include <map>

#include "core/engine_core.h"
#include "core/testing/scheduler_table.h"
#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

using testing::make;
using testing::table_config;

// An EngineCore on a SimClock (10 ns steps) reporting to the recorder.
struct Engine {
  explicit Engine(const SchedulerConfig& config, EngineTraceRecorder::FinishedFn fn = nullptr)
      : recorder(std::move(fn)), engine(config, backend, clock, &recorder) {}
  void run() {
    while (engine.step()) {
    }
  }
  SimClock clock;
  testing::ScriptedBackend backend;
  EngineTraceRecorder recorder;
  EngineCore engine;
};

TEST(EngineTraceRecorder, OnePrefillChunkPerStepTimedByTheStep) {
  std::map<std::string, EngineTraceEvents> got;
  // 4 tokens a step: a 10-token prompt takes chunks of 4, 4 and 2.
  Engine e(table_config(64, 4, 100),
           [&](const Request& r, EngineTraceEvents&& ev) { got[r.external_id] = std::move(ev); });
  e.engine.add_request(make("a", 10, 3, 1));
  e.run();
  const EngineTraceEvents& ev = got.at("a");
  ASSERT_EQ(ev.prefill_chunks.size(), 3u);
  EXPECT_EQ(ev.prefill_chunks[0].tokens, 4);
  EXPECT_EQ(ev.prefill_chunks[1].tokens, 4);
  EXPECT_EQ(ev.prefill_chunks[2].tokens, 2);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(ev.prefill_chunks[i].end - ev.prefill_chunks[i].start, 10) << i;
    if (i) {
      EXPECT_EQ(ev.prefill_chunks[i].start, ev.prefill_chunks[i - 1].end) << i;
    }
  }
  EXPECT_TRUE(ev.preemptions.empty());
}

TEST(EngineTraceRecorder, APreemptionRunsFromItsDecisionToTheRescheduling) {
  std::map<std::string, EngineTraceEvents> got;
  std::map<std::string, int32_t> preemptions;
  // Two requests that each need most of 6 blocks of 4 tokens: the newer one is preempted.
  Engine e(table_config(6, 64, 100), [&](const Request& r, EngineTraceEvents&& ev) {
    preemptions[r.external_id] = r.timeline.num_preemptions;
    got[r.external_id] = std::move(ev);
  });
  e.engine.add_request(make("a", 8, 12, 1));
  e.engine.add_request(make("b", 8, 12, 2));
  e.run();
  int64_t total = 0;
  for (const auto& [id, ev] : got) {
    EXPECT_EQ(static_cast<int32_t>(ev.preemptions.size()), preemptions[id]) << id;
    for (const Preemption& p : ev.preemptions) {
      EXPECT_NE(p.at, kNoTime) << id;
      EXPECT_GT(p.resumed, p.at) << id;
    }
    total += static_cast<int64_t>(ev.preemptions.size());
  }
  EXPECT_GE(total, 1) << "the cache is too small for both";
}

TEST(EngineTraceRecorder, WhenFinishedMeetsTheEngineInEitherOrder) {
  Engine e(table_config(64, 64, 100));
  e.engine.add_request(make("early", 4, 2, 1));
  e.run();  // finished before anyone asks: parked
  int calls = 0;
  size_t chunks = 0;
  e.recorder.when_finished("early", [&](EngineTraceEvents&& ev) {
    ++calls;
    chunks = ev.prefill_chunks.size();
  });
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(chunks, 1u);
  // Asked first (a job that ended on a stop string): called when the engine finishes it.
  e.recorder.when_finished("late", [&](EngineTraceEvents&& ev) {
    ++calls;
    chunks = ev.prefill_chunks.size();
  });
  EXPECT_EQ(calls, 1);
  e.engine.add_request(make("late", 6, 2, 2));
  e.run();
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(chunks, 1u);
}

}  // namespace
}  // namespace llm
