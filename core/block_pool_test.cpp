#include "core/block_pool.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <list>
#include <map>
#include <set>
#include <variant>
#include <vector>

namespace llm {
namespace {

TEST(BlockPool, NullBlockIsReservedAndAllOthersStartFree) {
  BlockPool pool(5);
  EXPECT_EQ(pool.num_usable(), 4);
  EXPECT_EQ(pool.num_free(), 4);
  EXPECT_EQ(pool.free_queue(), (std::vector<int32_t>{1, 2, 3, 4}));
  EXPECT_DOUBLE_EQ(pool.usage(), 0.0);
}

TEST(BlockPool, AllocateTakesFromTheHeadAndFailsWithoutChange) {
  BlockPool pool(5);
  std::vector<int32_t> got;
  ASSERT_TRUE(pool.allocate(3, got));
  EXPECT_EQ(got, (std::vector<int32_t>{1, 2, 3}));
  EXPECT_EQ(pool.num_free(), 1);
  EXPECT_DOUBLE_EQ(pool.usage(), 0.75);
  std::vector<int32_t> more;
  EXPECT_FALSE(pool.allocate(2, more));
  EXPECT_TRUE(more.empty());
  EXPECT_EQ(pool.num_free(), 1);
}

TEST(BlockPool, HashedBlocksGoToTheTailUnhashedToTheHeadInReverseOrder) {
  BlockPool pool(6);
  std::vector<int32_t> a;
  ASSERT_TRUE(pool.allocate(4, a));  // 1 2 3 4
  pool.cache(1, 101);
  pool.cache(2, 102);
  pool.release(a);  // walks 4, 3, 2, 1
  // Unhashed 4 then 3 pushed on the head; hashed 2 then 1 appended to the tail.
  EXPECT_EQ(pool.free_queue(), (std::vector<int32_t>{3, 4, 5, 2, 1}));
  EXPECT_EQ(pool.lookup(101), 1);
  EXPECT_EQ(pool.lookup(102), 2);
}

TEST(BlockPool, ReusingACachedBlockEvictsItsHash) {
  BlockPool pool(3);
  std::vector<int32_t> a;
  ASSERT_TRUE(pool.allocate(2, a));
  pool.cache(a[0], 7);
  pool.release(a);  // 2 (unhashed) to head, 1 (hashed) to tail: queue 2, 1
  std::vector<int32_t> b;
  ASSERT_TRUE(pool.allocate(2, b));
  EXPECT_EQ(b, (std::vector<int32_t>{2, 1}));
  EXPECT_EQ(pool.lookup(7), BlockPool::kNone);
  EXPECT_FALSE(pool.has_hash(1));
}

// vLLM keeps every block holding a hash: evicting the oldest copy leaves the hash cached.
TEST(BlockPool, ALookupFindsTheOldestCopyOfAHashAndStillHitsAfterItIsEvicted) {
  BlockPool pool(4);
  std::vector<int32_t> a;
  ASSERT_TRUE(pool.allocate(2, a));  // 1 2
  pool.cache(1, 55);
  pool.cache(2, 55);  // the same content computed twice
  EXPECT_EQ(pool.lookup(55), 1);
  EXPECT_EQ(pool.num_cached_hashes(), 1u);
  pool.release(std::vector<int32_t>{1});  // free queue: 3, 1
  std::vector<int32_t> b;
  ASSERT_TRUE(pool.allocate(2, b));  // reuses 3, then 1: its copy of 55 is evicted
  EXPECT_EQ(b, (std::vector<int32_t>{3, 1}));
  EXPECT_FALSE(pool.has_hash(1));
  EXPECT_EQ(pool.lookup(55), 2);
  pool.release(std::vector<int32_t>{2});
  std::vector<int32_t> c;
  ASSERT_TRUE(pool.allocate(1, c));  // the last copy goes
  EXPECT_EQ(pool.lookup(55), BlockPool::kNone);
  EXPECT_EQ(pool.num_cached_hashes(), 0u);
}

TEST(BlockPool, TakingAFreeCachedBlockRemovesItFromTheFreeQueue) {
  BlockPool pool(4);
  std::vector<int32_t> a;
  ASSERT_TRUE(pool.allocate(1, a));
  pool.cache(a[0], 9);
  pool.release(a);
  EXPECT_EQ(pool.num_free(), 3);
  const int32_t hit = pool.lookup(9);
  ASSERT_NE(hit, BlockPool::kNone);
  pool.take(std::vector<int32_t>{hit});
  EXPECT_EQ(pool.num_free(), 2);
  EXPECT_EQ(pool.ref_count(hit), 1);
  pool.take(std::vector<int32_t>{hit});
  EXPECT_EQ(pool.ref_count(hit), 2);
  EXPECT_EQ(pool.num_free(), 2);
}

// allocate() walks the free queue before evicting (to prefetch): the blocks, their order, the
// evictions' order and what is left must be those of popping the head n times.
TEST(BlockPool, AllocatingSeveralAppendsTheHeadsAndEvictsTheirHashesInQueueOrder) {
  BlockPool pool(7);
  std::vector<KvEvent> events;
  pool.set_event_sink(&events);
  std::vector<int32_t> a;
  ASSERT_TRUE(pool.allocate(6, a));  // 1 .. 6
  for (int32_t b : {3, 1, 5, 2}) pool.cache(b, 100 + static_cast<uint64_t>(b));
  pool.release(a);  // walks 6 .. 1: unhashed 6, 4 to the head; hashed 5, 3, 2, 1 to the tail
  ASSERT_EQ(pool.free_queue(), (std::vector<int32_t>{4, 6, 5, 3, 2, 1}));
  std::vector<int32_t> got = {42};  // allocate appends
  ASSERT_TRUE(pool.allocate(4, got));
  EXPECT_EQ(got, (std::vector<int32_t>{42, 4, 6, 5, 3}));
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(std::get<KvBlockRemoved>(events[0]).block_hashes, (std::vector<uint64_t>{105}));
  EXPECT_EQ(std::get<KvBlockRemoved>(events[1]).block_hashes, (std::vector<uint64_t>{103}));
  EXPECT_EQ(pool.lookup(105), BlockPool::kNone);
  EXPECT_EQ(pool.lookup(103), BlockPool::kNone);
  EXPECT_EQ(pool.lookup(102), 2);
  EXPECT_EQ(pool.free_queue(), (std::vector<int32_t>{2, 1}));
  for (int32_t b : {4, 6, 5, 3}) EXPECT_EQ(pool.ref_count(b), 1);
  std::vector<int32_t> none;
  EXPECT_TRUE(pool.allocate(0, none));
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(pool.free_queue(), (std::vector<int32_t>{2, 1}));
}

TEST(BlockPool, ReleasingAnUnreferencedBlockIsALogicError) {
  BlockPool pool(3);
  EXPECT_THROW(pool.release(std::vector<int32_t>{1}), std::logic_error);
}

// The free queue against a linked list in LRU order (the representation before the ring): random
// allocations, releases, cache registrations and hits on free cached blocks, many more than the
// ring's size, so that stale entries pile up and the ring is packed again and again.
RC_GTEST_PROP(BlockPool, FreeQueueMatchesALinkedListModel, ()) {
  const int32_t num_blocks = *rc::gen::inRange(2, 40);
  BlockPool pool(num_blocks);
  std::list<int32_t> queue;  // the model: head first
  for (int32_t b = 1; b < num_blocks; ++b) queue.push_back(b);
  std::map<int32_t, int32_t> refs;         // referenced blocks
  std::set<int32_t> hashed;                // blocks with a hash (the model's view)
  std::vector<std::vector<int32_t>> held;  // allocations still referenced
  const int ops = *rc::gen::inRange(1, 600);
  for (int op = 0; op < ops; ++op) {
    const int kind = *rc::gen::inRange(0, 4);
    if (kind == 0) {  // allocate n
      const int32_t n = *rc::gen::inRange(0, num_blocks + 1);
      std::vector<int32_t> got;
      const bool ok = pool.allocate(n, got);
      RC_ASSERT(ok == (n <= static_cast<int32_t>(queue.size())));
      if (!ok) continue;
      std::vector<int32_t> want(queue.begin(), std::next(queue.begin(), n));
      RC_ASSERT(got == want);
      queue.erase(queue.begin(), std::next(queue.begin(), n));
      for (int32_t b : got) {
        hashed.erase(b);
        ++refs[b];
      }
      if (!got.empty()) held.push_back(got);
    } else if (kind == 1 && !held.empty()) {  // release one allocation
      const size_t i = *rc::gen::inRange<size_t>(0, held.size());
      pool.release(held[i]);
      for (auto it = held[i].rbegin(); it != held[i].rend(); ++it) {
        if (--refs[*it] > 0) continue;
        refs.erase(*it);
        if (hashed.contains(*it)) {
          queue.push_back(*it);
        } else {
          queue.push_front(*it);
        }
      }
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
    } else if (kind == 2 && !refs.empty()) {  // cache a referenced block
      auto it = std::next(refs.begin(), *rc::gen::inRange<size_t>(0, refs.size()));
      pool.cache(it->first, 1000 + static_cast<uint64_t>(it->first));
      hashed.insert(it->first);
    } else if (kind == 3 && !queue.empty()) {  // a cache hit on a free block, anywhere in queue
      const int32_t b = *std::next(queue.begin(), *rc::gen::inRange<size_t>(0, queue.size()));
      pool.take(std::vector<int32_t>{b});
      queue.remove(b);
      ++refs[b];
      held.push_back({b});
    }
    RC_ASSERT(pool.free_queue() == std::vector<int32_t>(queue.begin(), queue.end()));
    RC_ASSERT(pool.num_free() == static_cast<int32_t>(queue.size()));
  }
}

}  // namespace
}  // namespace llm
