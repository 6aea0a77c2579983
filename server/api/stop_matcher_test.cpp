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

// vLLM's min_tokens: text of the first min_tokens tokens may start a stop string, not end one.
TEST(StopMatcher, GuardedTextEndsNoStopButMayStartOne) {
  StopMatcher m({"ab"});
  std::string out = m.feed("xab", false);  // a whole stop string in guarded text
  EXPECT_FALSE(m.matched());
  out += m.feed("a", false);
  EXPECT_FALSE(m.matched());
  out += m.feed("bc");  // "ab" ending here, begun in the guarded "a"
  EXPECT_TRUE(m.matched());
  EXPECT_EQ(out, "xab");
  StopMatcher later({"ab"});
  out = later.feed("ab", false);
  out += later.feed("cab");  // the first "ab" is guarded, the next one is not
  EXPECT_TRUE(later.matched());
  EXPECT_EQ(out, "abc");
  StopMatcher never({"ab"});
  out = never.feed("ab", false);
  out += never.feed("c");
  out += never.flush();
  EXPECT_FALSE(never.matched());
  EXPECT_EQ(out, "abc");
}

// vLLM's include_stop_str_in_output: the text is cut just after the stop string instead.
TEST(StopMatcher, IncludeStopCutsAfterTheStopString) {
  StopMatcher m({"lo wo"}, true);
  std::string out = m.feed("hel");
  out += m.feed("lo");
  out += m.feed(" world");
  EXPECT_TRUE(m.matched());
  EXPECT_EQ(out, "hello wo");
  EXPECT_EQ(m.feed("x"), "");
}

TEST(StopMatcher, EarliestOccurrenceWins) {
  StopMatcher m({"world", "o"});
  EXPECT_EQ(m.feed("hello world"), "hell");
  EXPECT_EQ(m.matched_stop(), "o");
}

}  // namespace
}  // namespace llm
