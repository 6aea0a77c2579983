// Tests for SeenIds (sim/trace/seen_ids.h): integer ids in intervals, others by fingerprint, and
// a property against a std::set.
#include "sim/trace/seen_ids.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>
#include <string>

namespace llm {
namespace {

TEST(SeenIds, CountingIdsTakeOneInterval) {
  SeenIds ids;
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(ids.insert(std::to_string(i)));
  EXPECT_EQ(ids.intervals(), 1u);
  EXPECT_EQ(ids.slots(), 0u);
  EXPECT_FALSE(ids.insert("0"));
  EXPECT_FALSE(ids.insert("99999"));
  EXPECT_TRUE(ids.insert("100000"));
}

TEST(SeenIds, IntervalsJoinFromBothSides) {
  SeenIds ids;
  for (const char* id : {"10", "12", "14"}) EXPECT_TRUE(ids.insert(id));
  EXPECT_EQ(ids.intervals(), 3u);
  EXPECT_TRUE(ids.insert("11"));  // joins 10 and 12
  EXPECT_EQ(ids.intervals(), 2u);
  EXPECT_TRUE(ids.insert("13"));
  EXPECT_EQ(ids.intervals(), 1u);
  EXPECT_TRUE(ids.insert("9"));
  EXPECT_TRUE(ids.insert("15"));
  EXPECT_EQ(ids.intervals(), 1u);
  for (const char* id : {"9", "10", "11", "12", "13", "14", "15"}) EXPECT_FALSE(ids.insert(id));
  EXPECT_TRUE(ids.insert("18446744073709551615"));  // 2^64 - 1: no overflow past it
  EXPECT_FALSE(ids.insert("18446744073709551615"));
  EXPECT_TRUE(ids.insert("0"));
}

TEST(SeenIds, OtherIdsAreNotIntegers) {
  SeenIds ids;
  for (const char* id : {"01", "1", "-1", "+1", "1.0", "", "18446744073709551616", "a"}) {
    EXPECT_TRUE(ids.insert(id)) << id;
  }
  EXPECT_EQ(ids.intervals(), 1u);  // "1" alone
  EXPECT_FALSE(ids.insert("01"));
  EXPECT_FALSE(ids.insert(""));
  EXPECT_FALSE(ids.insert("18446744073709551616"));
}

RC_GTEST_PROP(SeenIds, AnswersAsASetDoes, ()) {
  // Small ids, integers and not, so that repeats and adjacent integers are common.
  const auto ids = *rc::gen::container<std::vector<std::string>>(rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange(0, 60), [](int i) { return std::to_string(i); }),
      rc::gen::map(rc::gen::inRange(0, 60), [](int i) { return "x" + std::to_string(i); }),
      rc::gen::map(rc::gen::inRange(0, 20), [](int i) { return "0" + std::to_string(i); })));
  SeenIds seen;
  std::set<std::string> want;
  for (const std::string& id : ids) RC_ASSERT(seen.insert(id) == want.insert(id).second);
}

}  // namespace
}  // namespace llm
