#include "server/kv_events/kv_event_queue.h"

#include <gtest/gtest.h>

#include <chrono>

namespace llm {
namespace {

using std::chrono::milliseconds;

KvEventBatch batch_at(double ts) { return KvEventBatch{ts, {KvAllBlocksCleared{}}}; }

TEST(KvEventQueue, AFullQueueRefusesWithoutWaitingAndKeepsTheBatch) {
  KvEventQueue queue(2);
  KvEventBatch a = batch_at(1), b = batch_at(2), c = batch_at(3);
  EXPECT_TRUE(queue.try_push(a));
  EXPECT_TRUE(queue.try_push(b));
  EXPECT_FALSE(queue.try_push(c));
  EXPECT_EQ(c.ts, 3);
  EXPECT_EQ(c.events.size(), 1u) << "a refused batch is left to the caller";
  EXPECT_EQ(queue.size(), 2u);
}

TEST(KvEventQueue, PopsOldestFirstAndTimesOutWhenEmpty) {
  KvEventQueue queue(4);
  for (double ts : {1.0, 2.0, 3.0}) {
    KvEventBatch b = batch_at(ts);
    ASSERT_TRUE(queue.try_push(b));
  }
  for (double ts : {1.0, 2.0, 3.0}) {
    const auto got = queue.pop(milliseconds(0));
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->ts, ts);
  }
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(queue.pop(milliseconds(20)).has_value());
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(19));
  KvEventBatch again = batch_at(4);
  EXPECT_TRUE(queue.try_push(again)) << "popping made room";
}

}  // namespace
}  // namespace llm
