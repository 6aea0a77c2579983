// DelayTimer: callbacks run on its thread in deadline order, not before their deadline; those
// still waiting when it is destroyed are dropped unrun.
#include "server/faults/delay_timer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <vector>

namespace llm {
namespace {

TEST(DelayTimer, RunsCallbacksInDeadlineOrderNotBefore) {
  using Clock = DelayTimer::Clock;
  std::mutex mutex;
  std::vector<int> order;
  std::atomic<int> ran{0};
  const Clock::time_point start = Clock::now();
  std::atomic<bool> early{false};
  {
    DelayTimer timer;
    for (int ms : {60, 20, 40}) {
      const Clock::time_point due = start + std::chrono::milliseconds(ms);
      timer.at(due, [&, ms, due] {
        if (Clock::now() < due) early = true;
        std::lock_guard<std::mutex> lock(mutex);
        order.push_back(ms);
        ++ran;
      });
    }
    while (ran < 3 && Clock::now() < start + std::chrono::seconds(5)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  EXPECT_EQ(order, (std::vector<int>{20, 40, 60}));
  EXPECT_FALSE(early);
}

TEST(DelayTimer, DropsWhatIsStillWaitingWhenDestroyed) {
  std::atomic<bool> ran{false};
  {
    DelayTimer timer;
    timer.at(DelayTimer::Clock::now() + std::chrono::hours(1), [&ran] { ran = true; });
  }
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace llm
