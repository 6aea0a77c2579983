// The mock GPU's fault points (FaultyBackend) and how EngineCore takes a failed step (StepFailed):
// the batch ends with `error`, its blocks are freed, the observer hears of it, the engine goes on;
// any other exception from a backend still propagates.
#include "backends/sim/faulty_backend.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "core/engine_core.h"
#include "core/testing/scheduler_table.h"
#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

using testing::make;
using testing::Recorder;

SchedulerConfig small_config() {
  SchedulerConfig c = testing::table_config(40, 64, 64);
  c.max_num_seqs = 2;
  return c;
}

// Fails the step with the given number (1-based) with StepFailed, or with `other` if set.
class FailingBackend final : public Backend {
 public:
  explicit FailingBackend(int fail_at, bool other = false) : fail_at_(fail_at), other_(other) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    const Nanos d = inner_.execute(batch, sampled);
    if (inner_.steps() != fail_at_) return d;
    if (other_) throw std::runtime_error("device lost");
    throw StepFailed("transient", 25);
  }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }

 private:
  testing::ScriptedBackend inner_{10};
  int fail_at_;
  bool other_;
};

TEST(FaultyBackend, DefaultFaultsAreNoFaultsAndChangeNothing) {
  EXPECT_FALSE(BackendFaults{}.any());
  testing::ScriptedBackend inner(10);
  FaultyBackend faulty(inner, BackendFaults{}, 1);
  SchedulerOutput batch;
  std::vector<int32_t> sampled;
  for (int i = 0; i < 100; ++i) EXPECT_EQ(faulty.execute(batch, sampled), 10);
  EXPECT_EQ(faulty.num_spikes(), 0);
  EXPECT_EQ(faulty.num_failures(), 0);
}

TEST(FaultyBackend, SlowdownAndSpikesOnlyStretchStepsAndTheSeedFixesThem) {
  BackendFaults f;
  f.slowdown = 2;
  f.spike_probability = 0.3;
  f.spike_factor = 10;
  testing::ScriptedBackend inner(100);
  FaultyBackend a(inner, f, 7);
  FaultyBackend b(inner, f, 7);
  SchedulerOutput batch;
  std::vector<int32_t> sampled;
  for (int i = 0; i < 200; ++i) {
    const Nanos d = a.execute(batch, sampled);
    EXPECT_GE(d, 200);
    EXPECT_LE(d, 2000);
    EXPECT_EQ(d, b.execute(batch, sampled));
  }
  EXPECT_GT(a.num_spikes(), 20);
  EXPECT_LT(a.num_spikes(), 100);
}

TEST(FaultyBackend, FailuresThrowStepFailedWithTheStepsTime) {
  BackendFaults f;
  f.failure_probability = 1;
  testing::ScriptedBackend inner(30);
  FaultyBackend faulty(inner, f, 3);
  SchedulerOutput batch;
  std::vector<int32_t> sampled;
  try {
    faulty.execute(batch, sampled);
    FAIL() << "no StepFailed";
  } catch (const StepFailed& e) {
    EXPECT_EQ(e.elapsed(), 30);
  }
  EXPECT_EQ(faulty.num_failures(), 1);
}

TEST(EngineCore, AFailedStepEndsItsBatchWithErrorFreesItsBlocksAndTheEngineGoesOn) {
  FailingBackend backend(/*fail_at=*/2);
  SimClock clock;
  Recorder rec;
  EngineCore engine(small_config(), backend, clock, &rec);
  engine.add_request(make("A", 8, 5, 1));
  engine.add_request(make("B", 4, 5, 2));
  engine.add_request(make("C", 4, 3, 3));  // waits: max_num_seqs is 2
  ASSERT_TRUE(engine.step());
  EXPECT_FALSE(engine.last_step_failed());
  ASSERT_TRUE(engine.step());  // fails after 25 ns
  EXPECT_TRUE(engine.last_step_failed());
  EXPECT_EQ(clock.now(), 35);
  for (const char* id : {"A", "B"}) {
    ASSERT_EQ(rec.finished.count(id), 1u) << id;
    EXPECT_EQ(rec.finished[id].reason, FinishReason::kError) << id;
    EXPECT_EQ(rec.finished[id].outputs, 1) << id;  // the failed step applied no token
    EXPECT_EQ(rec.finished[id].timeline.finished, 35) << id;
  }
  EXPECT_EQ(engine.scheduler().num_running(), 0u);
  EXPECT_EQ(engine.scheduler().kv().pool().num_free(), 39);
  while (engine.step()) {
  }
  EXPECT_FALSE(engine.last_step_failed());
  EXPECT_EQ(rec.finished["C"].reason, FinishReason::kStop);
  EXPECT_EQ(rec.finished["C"].outputs, 3);
  EXPECT_EQ(engine.scheduler().kv().pool().num_free(), 39);
}

TEST(EngineCore, AnyOtherBackendExceptionStillPropagates) {
  FailingBackend backend(/*fail_at=*/1, /*other=*/true);
  SimClock clock;
  EngineCore engine(small_config(), backend, clock);
  engine.add_request(make("A", 8, 5, 1));
  EXPECT_THROW(engine.step(), std::runtime_error);
  EXPECT_FALSE(engine.last_step_failed());
}

}  // namespace
}  // namespace llm
