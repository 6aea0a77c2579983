#include "sim/replay/overload.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

namespace llm {
namespace {

constexpr Nanos kOverloadTestSecond = 1'000'000'000;

// One engine stepping every 10 ms from 0 to `until_s`, its waiting queue after each step given
// by `waiting(t in seconds)`; arrivals from 0 to 100 s.
OverloadFigures run(const std::function<double(double)>& waiting, double until_s = 120) {
  OverloadObserver o(0, 100 * kOverloadTestSecond);
  for (Nanos t = 10'000'000; t <= static_cast<Nanos>(until_s * kOverloadTestSecond);
       t += 10'000'000) {
    StepStats s;
    s.start = t - 10'000'000;
    s.end = t;
    s.num_waiting =
        static_cast<int64_t>(std::ceil(waiting(static_cast<double>(t) / kOverloadTestSecond)));
    o.on_step(s);
  }
  return o.figures();
}

TEST(Overload, UnstableOnlyWhenTheQueueGrowsWithoutDrainingOverAFifthOfTheArrivals) {
  struct Row {
    const char* name;
    std::function<double(double)> waiting;
    bool unstable;
    double since_s;
  };
  const Row rows[] = {
      {"grows from the start", [](double t) { return 2 * t; }, true, 0},
      {"drains and then grows from 50 s", [](double t) { return t < 50 ? 0 : 3 * (t - 50); }, true,
       50},
      {"a burst that drains", [](double t) { return t < 10 || t > 30 ? 0 : 100 - 5 * (t - 10); },
       false, 0},
      {"a burst in the last 5% (too short to tell)",
       [](double t) { return t < 95 ? 0 : 10 * (t - 95); }, false, 0},
      {"a flat queue that never drains", [](double t) { return t < 5 ? 0 : 10; }, false, 0},
      {"grows, then drains just before the last arrival",
       [](double t) { return t < 80 ? t : (t < 90 ? 80 - 8 * (t - 80) : 0); }, false, 0},
      {"grows by one request only", [](double t) { return t < 50 ? 0 : 1; }, false, 0},
      {"idle", [](double) { return 0; }, false, 0},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    const OverloadFigures f = run(row.waiting);
    EXPECT_EQ(f.unstable, row.unstable) << f.early_mean << " -> " << f.late_mean;
    if (row.unstable) {
      EXPECT_NEAR(f.since_s, row.since_s, 0.02);
      EXPECT_GT(f.late_mean, f.early_mean);
      EXPECT_GT(f.growth_per_s, 0);
    }
  }
}

TEST(Overload, WaitingAtTheLastArrivalIsTheQueueHeldThen) {
  EXPECT_EQ(run([](double t) { return 2 * t; }).waiting_at_end,
            200);  // after the step ending at 100 s
  // The last step ended before the last arrival: its queue is held until then.
  EXPECT_EQ(run([](double t) { return 2 * t; }, 50).waiting_at_end, 100);
}

TEST(Overload, ADeploymentIsUnstableFromItsEarliestUnstableEngine) {
  OverloadFigures stable, a, b;
  stable.waiting_at_end = 3;
  a.unstable = b.unstable = true;
  a.since_s = 40;
  b.since_s = 25;
  a.waiting_at_end = 100;
  b.waiting_at_end = 50;
  const OverloadFigures all = combine_overload({stable, a, b});
  EXPECT_TRUE(all.unstable);
  EXPECT_EQ(all.since_s, 25);
  EXPECT_EQ(all.waiting_at_end, 153);
  EXPECT_FALSE(combine_overload({stable, stable}).unstable);
  EXPECT_EQ(describe_overload(combine_overload({stable})),
            "stable: no engine's waiting queue grew without draining");
  EXPECT_EQ(describe_overload(all).rfind("UNSTABLE from 25.0 s: the waiting queue grew", 0), 0u);
}

}  // namespace
}  // namespace llm

namespace llm {
namespace {

// A step ending where a bucket boundary rounds below its own bucket's end (found by search for
// this window): the area must still move on to the next bucket (it looped forever before).
TEST(Overload, AStepEndingOnARoundedBucketBoundaryMovesOn) {
  const Nanos end = 10'000'000'150'461;
  OverloadObserver o(0, end);
  StepStats s;
  s.end = 8'955'078'259'739;
  s.num_waiting = 5;
  o.on_step(s);
  s.end += kOverloadTestSecond * 1000;
  o.on_step(s);
  s.end = end + 1;
  o.on_step(s);
  EXPECT_EQ(o.figures().waiting_at_end, 5);
}

}  // namespace
}  // namespace llm
