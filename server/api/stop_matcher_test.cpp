#include "server/api/stop_matcher.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(StopMatcher, WithoutStopsPassesEverything) {
  StopMatcher m({});
  EXPECT_EQ(m.feed(" a"), " a");
  EXPECT_FALSE(m.matched());
}

TEST(StopMatcher, MatchesAcrossTokenBoundariesAndCutsBeforeTheStop) {
  StopMatcher m({"lo wo"});
  std::string out;
  out += m.feed("hel");
  out += m.feed("lo");
  EXPECT_FALSE(m.matched());
  out += m.feed(" world");
  EXPECT_TRUE(m.matched());
  EXPECT_EQ(m.matched_stop(), "lo wo");
  EXPECT_EQ(out, "hel");
  EXPECT_EQ(m.feed(" more"), "");
}

TEST(StopMatcher, HoldsBackOnlyAPossiblePrefixAndFlushesIt) {
  StopMatcher m({"xyz"});
  EXPECT_EQ(m.feed("abcx"), "ab");  // "cx" could start "xyz"? only "x" can; hold is len-1 = 2
  EXPECT_EQ(m.feed("y"), "c");
  EXPECT_EQ(m.flush(), "xy");
  EXPECT_FALSE(m.matched());
}

TEST(StopMatcher, EarliestOccurrenceWins) {
  StopMatcher m({"world", "o"});
  EXPECT_EQ(m.feed("hello world"), "hell");
  EXPECT_EQ(m.matched_stop(), "o");
}

}  // namespace
}  // namespace llm
