// The fault schedule the replay driver asks: engine-down windows merged into transitions, slow
// factors that multiply, and the 5xx draws: the largest share of overlapping windows, seeded per
// trace request, about that share of the requests.
#include "sim/faults/fault_schedule.h"

#include <gtest/gtest.h>

#include <iterator>

namespace llm {
namespace {

constexpr int64_t kScheduleSec = 1'000'000'000;

TEST(FaultSchedule, EngineDownWindowsMergeIntoTransitions) {
  const FaultSchedule s({parse_fault("engine-down:1:20s:40s"), parse_fault("engine-down:1:30s:50s"),
                         parse_fault("engine-down:1:50s:60s"), parse_fault("engine-down:0:30s:35s"),
                         parse_fault("engine-down:1:90s:100s")},
                        2, 0);
  struct Want {
    int64_t time;
    size_t engine;
    bool down;
  };
  const Want want[] = {{20 * kScheduleSec, 1, true},  {30 * kScheduleSec, 0, true},
                       {35 * kScheduleSec, 0, false}, {60 * kScheduleSec, 1, false},
                       {90 * kScheduleSec, 1, true},  {100 * kScheduleSec, 1, false}};
  ASSERT_EQ(s.transitions().size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i) {
    EXPECT_EQ(s.transitions()[i].time, want[i].time) << i;
    EXPECT_EQ(s.transitions()[i].engine, want[i].engine) << i;
    EXPECT_EQ(s.transitions()[i].down, want[i].down) << i;
  }
  EXPECT_FALSE(s.engine_down(1, 20 * kScheduleSec - 1));
  EXPECT_TRUE(s.engine_down(1, 55 * kScheduleSec));
  EXPECT_FALSE(s.engine_down(1, 60 * kScheduleSec));
  EXPECT_FALSE(s.engine_down(0, 55 * kScheduleSec));
  EXPECT_TRUE(s.any_down(32 * kScheduleSec));
  EXPECT_FALSE(s.any_down(70 * kScheduleSec));
  EXPECT_FALSE(s.empty());
  EXPECT_TRUE(FaultSchedule({}, 2, 0).empty());
}

TEST(FaultSchedule, SlowFactorsMultiplyOnTheirEngine) {
  const FaultSchedule s({parse_fault("slow:0:2:10s:30s"), parse_fault("slow:0:3:20s:40s"),
                         parse_fault("slow:1:5:0:1h")},
                        2, 0);
  EXPECT_EQ(s.slow_factor(0, 5 * kScheduleSec), 1);
  EXPECT_EQ(s.slow_factor(0, 15 * kScheduleSec), 2);
  EXPECT_EQ(s.slow_factor(0, 25 * kScheduleSec), 6);
  EXPECT_EQ(s.slow_factor(0, 35 * kScheduleSec), 3);
  EXPECT_EQ(s.slow_factor(0, 40 * kScheduleSec), 1);
  EXPECT_EQ(s.slow_factor(1, 25 * kScheduleSec), 5);
}

TEST(FaultSchedule, FiveHundredsAreSeededDrawsOfTheLargestShare) {
  const FaultSchedule s({parse_fault("http-5xx:10:0:100s"), parse_fault("http-5xx:40:50s:100s")}, 1,
                        7);
  EXPECT_EQ(s.http_5xx_percent(10 * kScheduleSec), 10);
  EXPECT_EQ(s.http_5xx_percent(60 * kScheduleSec), 40);
  EXPECT_EQ(s.http_5xx_percent(100 * kScheduleSec), 0);
  int early = 0, late = 0, after = 0;
  const int n = 10000;
  for (int i = 0; i < n; ++i) {
    early += s.answers_5xx(static_cast<size_t>(i), 10 * kScheduleSec);
    late += s.answers_5xx(static_cast<size_t>(i), 60 * kScheduleSec);
    after += s.answers_5xx(static_cast<size_t>(i), 100 * kScheduleSec);
  }
  EXPECT_NEAR(early, n / 10, n / 100);
  EXPECT_NEAR(late, n * 4 / 10, n / 50);
  EXPECT_EQ(after, 0);
  // The same request gets the same draw; another seed draws others.
  const FaultSchedule again({parse_fault("http-5xx:10:0:100s")}, 1, 7);
  const FaultSchedule other({parse_fault("http-5xx:10:0:100s")}, 1, 8);
  int same = 0, differ = 0;
  for (size_t i = 0; i < 1000; ++i) {
    same += s.answers_5xx(i, kScheduleSec) == again.answers_5xx(i, kScheduleSec);
    differ += s.answers_5xx(i, kScheduleSec) != other.answers_5xx(i, kScheduleSec);
  }
  EXPECT_EQ(same, 1000);
  EXPECT_GT(differ, 100);
}

}  // namespace
}  // namespace llm
