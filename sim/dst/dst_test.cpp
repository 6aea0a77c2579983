// llmsim dst's cases and runs, and the invariant checker itself: seeds name their cases, the
// first seeds keep every invariant while every fault fires, the seeds that once livelocked
// finish, and the checker catches planted
// violations (an abort nobody asked for, a sequence finished twice, an idle engine with work, a
// token outside a step, a request never queued that nobody had to refuse).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/dst/dst_case.h"
#include "sim/dst/dst_run.h"
#include "sim/dst/invariants.h"

namespace llm {
namespace {

TEST(DstCases, TheSameSeedGivesTheSameCaseAndEveryCaseIsValid) {
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const DstCase a = make_dst_case(seed);
    const DstCase b = make_dst_case(seed);
    EXPECT_EQ(describe_dst_case(a), describe_dst_case(b));
    ASSERT_EQ(a.trace.requests.size(), b.trace.requests.size());
    EXPECT_EQ(a.config.faults.aborts.size(), b.config.faults.aborts.size());
    EXPECT_EQ(validate(a.config.scheduler), "") << seed;
    if (a.squeezed) {
      SchedulerConfig fewer = a.config.scheduler;
      --fewer.num_gpu_blocks;
      EXPECT_NE(validate(fewer), "") << seed;
    }
  }
}

TEST(DstRun, TheFirstSeedsKeepEveryInvariantWhileEveryFaultFires) {
  FaultTotals seen;
  int64_t preemptions = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const DstOutcome o = run_dst_seed(seed);
    ASSERT_TRUE(o.ok) << "seed " << seed << ": " << o.invariant << ": " << o.detail;
    seen.failed_steps += o.totals.faults.failed_steps;
    seen.latency_spikes += o.totals.faults.latency_spikes;
    for (size_t i = 0; i < kNumAbortStates; ++i) seen.aborts[i] += o.totals.faults.aborts[i];
    preemptions += o.totals.sum().num_preemptions;
  }
  EXPECT_GT(seen.failed_steps, 0);
  EXPECT_GT(seen.latency_spikes, 0);
  EXPECT_GT(preemptions, 0);
  for (size_t i = 0; i < kNumAbortStates; ++i) {
    EXPECT_GT(seen.aborts[i], 0) << abort_state_name(static_cast<AbortState>(i));
  }
}

// The seeds that found the priority livelock (docs/scheduler.md): priority policy, no
// whole-sequence admission gate, n > 1 siblings cycling through preemption. Each ran past the
// LIVENESS limit (2,000,000 steps) before the victim rule broke ties in the waiting queue's order.
TEST(DstRun, PrioritySeedsWithoutTheAdmissionGateThatOnceLivelockedFinish) {
  for (uint64_t seed : {1046u, 1156u, 1307u, 1744u}) {
    const DstCase c = make_dst_case(seed);
    ASSERT_EQ(c.config.scheduler.policy, SchedulingPolicy::kPriority) << seed;
    ASSERT_FALSE(c.config.scheduler.scheduler_reserve_full_isl) << seed;
    const DstOutcome o = run_dst_seed(seed);
    EXPECT_TRUE(o.ok) << "seed " << seed << ": " << o.invariant << ": " << o.detail;
    EXPECT_GT(o.totals.sum().num_preemptions, 0) << seed;
  }
}

// One request on one engine, its sequence as the engine would hold it, and a checker fed by hand.
struct Planted {
  explicit Planted(ReplayFaults faults = {}) {
    TraceRequest r;
    r.id = "x";
    r.prompt_len = 8;
    r.output_len = 4;
    trace.requests.push_back(r);
    config.scheduler.max_model_len = 64;
    config.scheduler.num_gpu_blocks = 10;
    config.faults = std::move(faults);
    seq = make_request(trace.requests[0], 0);
    checker = std::make_unique<ReplayChecker>(trace, config, false);
    checker->hooks().on_route(0, 0);
  }
  EngineObserver& engine() { return *checker->observers()[0]; }
  void queue_at(Nanos t) {
    seq->timeline.queued = t;
    engine().on_queued(*seq);
  }
  void end_as(FinishReason reason, Nanos t) {
    seq->state = RequestState::kFinished;
    seq->finish_reason = reason;
    seq->timeline.finished = t;
  }
  // The invariant the call violates ("" when none).
  template <typename Fn>
  std::string violated(Fn&& fn) {
    try {
      fn();
    } catch (const InvariantViolation& v) {
      return v.invariant();
    }
    return "";
  }

  Trace trace;
  ReplayConfig config;
  std::unique_ptr<Request> seq;
  std::unique_ptr<ReplayChecker> checker;
};

TEST(Invariants, AnAbortNoFaultAskedForIsAnAbortViolation) {
  Planted p;
  p.queue_at(0);
  p.end_as(FinishReason::kAbort, 0);
  EXPECT_EQ(p.violated([&] { p.engine().on_finished(*p.seq); }), "ABORT");
}

TEST(Invariants, ASequenceFinishedTwiceIsAConservationViolation) {
  ReplayFaults faults;
  faults.loop_abort_probability = 0.5;
  Planted p(faults);
  p.queue_at(0);
  p.end_as(FinishReason::kAbort, 0);
  EXPECT_EQ(p.violated([&] { p.engine().on_finished(*p.seq); }), "");
  EXPECT_EQ(p.violated([&] { p.engine().on_finished(*p.seq); }), "CONSERVATION");
}

TEST(Invariants, AnEngineIdleWithQueuedWorkIsAWorkConservationViolation) {
  Planted p;
  p.queue_at(0);
  SchedulerOutput later;
  later.schedule_time = 5;
  SchedulerConfig config;
  config.num_gpu_blocks = 10;
  const Scheduler scheduler(config);
  EXPECT_EQ(p.violated([&] { p.engine().on_scheduled(later, scheduler); }), "WORK_CONSERVATION");
}

TEST(Invariants, ATokenOutsideAStepIsAnOutputViolation) {
  Planted p;
  p.queue_at(0);
  p.seq->num_output_tokens = 1;
  EXPECT_EQ(p.violated([&] { p.engine().on_token(*p.seq, 10, kNoTime); }), "OUTPUT");
}

TEST(Invariants, ARequestNobodyRefusesMustBeQueued) {
  Planted p;
  p.end_as(FinishReason::kError, 0);
  EXPECT_EQ(p.violated([&] { p.engine().on_finished(*p.seq); }), "REFUSAL");
}

}  // namespace
}  // namespace llm
