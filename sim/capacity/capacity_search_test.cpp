#include "sim/capacity/capacity_search.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>

namespace llm {
namespace {

// A predicate true from `threshold` on, recording every batch it is asked.
struct Threshold {
  int64_t threshold;
  std::vector<std::vector<int64_t>> batches;
  BatchPredicate predicate() {
    return [this](const std::vector<int64_t>& points) {
      batches.push_back(points);
      std::vector<bool> v;
      for (int64_t x : points) v.push_back(x >= threshold);
      return v;
    };
  }
};

TEST(CapacitySearch, FindsTheFirstTruePointOfTheEngineRange) {
  const SearchSpace engines{1, 64, 1, 1};
  for (int64_t t : {1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 33, 63, 64}) {
    Threshold p{t, {}};
    const SearchOutcome o = find_first_true(engines, p.predicate());
    ASSERT_TRUE(o.first_true) << t;
    EXPECT_EQ(*o.first_true, t);
    EXPECT_EQ(o.true_at_min, t == 1);
    EXPECT_FALSE(o.violation_true) << t;
    // The answer's neighbour below was evaluated (and so can be reported).
    if (t > 1) {
      EXPECT_TRUE(std::any_of(o.evaluated.begin(), o.evaluated.end(), [t](const SearchPoint& s) {
        return s.x == t - 1 && !s.value;
      })) << t;
    }
  }
  Threshold never{65, {}};
  const SearchOutcome o = find_first_true(engines, never.predicate());
  EXPECT_FALSE(o.first_true);
  EXPECT_EQ(o.evaluated.back().x, 64);
  EXPECT_FALSE(o.evaluated.back().value);
}

TEST(CapacitySearch, TheLadderAndTheBatchesAreAsDocumented) {
  Threshold p{6, {}};
  const SearchOutcome o = find_first_true({1, 64, 1, 1}, p.predicate());
  ASSERT_EQ(p.batches.size(), 3u);
  EXPECT_EQ(p.batches[0], (std::vector<int64_t>{1}));
  EXPECT_EQ(p.batches[1], (std::vector<int64_t>{2, 4, 8, 16}));
  EXPECT_EQ(p.batches[2], (std::vector<int64_t>{5, 6, 7}));  // inside (4, 8)
  EXPECT_EQ(o.batches, 3);
}

TEST(CapacitySearch, GoesDownwardsWhenTheStartIsAlreadyTrue) {
  const SearchSpace scale{-320, 320, 0, 32};
  for (int64_t t : {-320, -319, -200, -33, -32, -1, 0, 1, 31, 32, 100, 319, 320}) {
    Threshold p{t, {}};
    const SearchOutcome o = find_first_true(scale, p.predicate());
    ASSERT_TRUE(o.first_true) << t;
    EXPECT_EQ(*o.first_true, t);
    EXPECT_EQ(o.true_at_min, t == -320);
  }
  Threshold below{-1000, {}};
  const SearchOutcome o = find_first_true(scale, below.predicate());
  EXPECT_EQ(o.first_true, -320);
  EXPECT_TRUE(o.true_at_min);
}

TEST(CapacitySearch, ReportsANonMonotonePredicate) {
  // True at 2, false from 3 to 9, true from 10: the ladder evaluates 1 (false), then 2, 4, 8, 16
  // (true, false, false, true), so 2 is the answer and the false 4 above it the violation.
  const BatchPredicate p = [](const std::vector<int64_t>& points) {
    std::vector<bool> v;
    for (int64_t x : points) v.push_back(x == 2 || x >= 10);
    return v;
  };
  const SearchOutcome o = find_first_true({1, 64, 1, 1}, p);
  ASSERT_TRUE(o.first_true);
  EXPECT_EQ(*o.first_true, 2);
  ASSERT_TRUE(o.violation_true);
  EXPECT_EQ(o.violation_true->x, 2);
  EXPECT_EQ(o.violation_false->x, 4);
}

TEST(CapacitySearch, RefusesABadSpace) {
  Threshold p{1, {}};
  EXPECT_THROW(find_first_true({5, 1, 5, 1}, p.predicate()), std::invalid_argument);
  EXPECT_THROW(find_first_true({1, 5, 0, 1}, p.predicate()), std::invalid_argument);
  EXPECT_THROW(find_first_true({1, 5, 1, 0}, p.predicate()), std::invalid_argument);
}

RC_GTEST_PROP(CapacitySearchProperty, FindsTheThresholdOfAnyMonotonePredicate, ()) {
  const int64_t min = *rc::gen::inRange<int64_t>(-500, 500);
  const int64_t max = min + *rc::gen::inRange<int64_t>(0, 1000);
  const int64_t start = *rc::gen::inRange<int64_t>(min, max + 1);
  const int64_t unit = *rc::gen::inRange<int64_t>(1, 100);
  const int64_t threshold = *rc::gen::inRange<int64_t>(min - 10, max + 10);
  Threshold p{threshold, {}};
  const SearchOutcome o = find_first_true({min, max, start, unit}, p.predicate());
  if (threshold > max) {
    RC_ASSERT(!o.first_true);
  } else {
    RC_ASSERT(o.first_true == std::max(threshold, min));
  }
  RC_ASSERT(!o.violation_true);
  std::set<int64_t> seen;
  for (const auto& batch : p.batches) {
    RC_ASSERT(batch.size() <= static_cast<size_t>(kSearchBatch));
    for (int64_t x : batch) {
      RC_ASSERT(x >= min && x <= max);
      RC_ASSERT(seen.insert(x).second);  // no point is evaluated twice
    }
  }
}

}  // namespace
}  // namespace llm
