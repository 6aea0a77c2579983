#include "core/clock.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace llm {
namespace {

TEST(SimClock, SetMovesForwardOrStaysAndThrowsWhenTimeWouldGoBackwards) {
  SimClock clock(100);
  clock.set(100);
  clock.set(250);
  EXPECT_EQ(clock.now(), 250);
  // A logic_error, not an assert: Release builds (NDEBUG) must still refuse it.
  EXPECT_THROW(clock.set(249), std::logic_error);
  EXPECT_EQ(clock.now(), 250);
}

TEST(SimClock, WaitUntilJumpsForwardAndNeverBack) {
  SimClock clock(50);
  clock.wait_until(20);
  EXPECT_EQ(clock.now(), 50);
  clock.wait_until(80);
  EXPECT_EQ(clock.now(), 80);
}

}  // namespace
}  // namespace llm
