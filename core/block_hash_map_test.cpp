#include "core/block_hash_map.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

namespace llm {
namespace {

// Each row: an operation on key 7 and what find(7) gives after it. Blocks 1, 2 and 3 hold the
// same hash, as when three requests computed the same block concurrently (vLLM keeps them all).
TEST(BlockHashMap, FindGivesTheOldestCopyStillHeldAndHitsUntilTheLastCopyGoes) {
  struct Row {
    bool insert;  // else erase
    int32_t value;
    bool done;  // what insert/erase reports (insert always succeeds here)
    int32_t find_after;
  };
  const std::vector<Row> rows = {
      {true, 1, true, 1},
      {true, 2, true, 1},  // a second copy: the first stays the one found
      {true, 3, true, 1},
      {false, 1, true, 2},   // the oldest copy is evicted: the next oldest is found
      {false, 1, false, 2},  // not a holder any more
      {true, 1, true, 2},    // re-inserted: now the newest
      {false, 3, true, 2},   // a middle copy leaves
      {false, 2, true, 1},
      {false, 1, true, BlockHashMap::kAbsent},  // the last copy: the hash is gone
  };
  BlockHashMap map(8);
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    if (row.insert) {
      map.insert(7, row.value);
    } else {
      EXPECT_EQ(map.erase(7, row.value), row.done) << "row " << i;
    }
    EXPECT_EQ(map.find(7), row.find_after) << "row " << i;
    EXPECT_EQ(map.size(), row.find_after == BlockHashMap::kAbsent ? 0u : 1u) << "row " << i;
  }
}

TEST(BlockHashMap, EraseOfAValueUnderAnotherKeyChangesNothing) {
  BlockHashMap map(4);
  map.insert(5, 1);
  map.insert(6, 2);
  EXPECT_FALSE(map.erase(6, 1));
  EXPECT_FALSE(map.erase(5, 2));
  EXPECT_EQ(map.find(5), 1);
  EXPECT_EQ(map.find(6), 2);
}

TEST(BlockHashMap, AValueHoldsOneHashAtATimeAndMustBeInRange) {
  BlockHashMap map(4);
  map.insert(5, 1);
  EXPECT_THROW(map.insert(6, 1), std::logic_error);
  EXPECT_THROW(map.insert(5, 4), std::logic_error);
  EXPECT_THROW(map.insert(5, -1), std::logic_error);
  EXPECT_TRUE(map.erase(5, 1));
  map.insert(6, 1);  // free again
  EXPECT_EQ(map.find(6), 1);
}

// Against std::map from a key to its holders in insertion order, with keys that collide in the
// low bits to stress probing and few values so that keys often have several holders.
RC_GTEST_PROP(BlockHashMap, BehavesLikeAMapToHoldersInInsertionOrder, ()) {
  constexpr int32_t kValues = 64;
  BlockHashMap table(kValues);
  std::map<uint64_t, std::vector<int32_t>> model;
  std::vector<int64_t> key_of(kValues, -1);  // -1: the value holds nothing
  const int ops = *rc::gen::inRange(1, 400);
  for (int op = 0; op < ops; ++op) {
    const uint64_t key =
        (*rc::gen::inRange<uint64_t>(0, 40)) * 64 + *rc::gen::inRange<uint64_t>(0, 3);
    const int32_t value = *rc::gen::inRange(0, kValues);
    if (*rc::gen::inRange(0, 2) == 0) {
      if (key_of[value] < 0) {
        table.insert(key, value);
        model[key].push_back(value);
        key_of[value] = static_cast<int64_t>(key);
      }
    } else {
      const bool holds = key_of[value] == static_cast<int64_t>(key);
      RC_ASSERT(table.erase(key, value) == holds);
      if (holds) {
        std::vector<int32_t>& holders = model[key];
        holders.erase(std::find(holders.begin(), holders.end(), value));
        if (holders.empty()) model.erase(key);
        key_of[value] = -1;
      }
    }
    RC_ASSERT(table.size() == model.size());
    for (const auto& [k, holders] : model) RC_ASSERT(table.find(k) == holders.front());
    RC_ASSERT(table.find(key) ==
              (model.count(key) ? model.at(key).front() : BlockHashMap::kAbsent));
  }
}

}  // namespace
}  // namespace llm
