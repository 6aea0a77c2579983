#include "core/kv_cache_manager.h"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "core/testing/prefix_cache_requests.h"

namespace llm {
namespace {

using testing::admit;
using testing::iota_tokens;
using testing::with_tokens;

TEST(PrefixCache, SharedFullBlocksHitWhileTheFirstRequestIsStillCached) {
  KvCacheManager kv(32, 4, true);
  Request a = with_tokens(iota_tokens(14, 100), 1);  // 3 full blocks + 2 tokens
  EXPECT_EQ(admit(kv, a), 0);
  std::vector<int32_t> b_tokens = iota_tokens(12, 100);  // same first 3 blocks
  b_tokens.push_back(5);
  Request b = with_tokens(b_tokens, 2);
  EXPECT_EQ(admit(kv, b), 12);  // k = 3 blocks x block_size 4
  EXPECT_EQ(kv.pool().ref_count(a.block_ids[0]), 2);
  kv.release(a);
  kv.release(b);
  // After both leave, the blocks stay cached: a third request still hits them.
  Request c = with_tokens(b_tokens, 3);
  EXPECT_EQ(admit(kv, c), 12);
}

TEST(PrefixCache, TheLastPromptTokenIsNeverAHit) {
  KvCacheManager kv(32, 4, true);
  Request a = with_tokens(iota_tokens(8, 0), 1);
  admit(kv, a);
  Request b = with_tokens(iota_tokens(8, 0), 2);  // fully cached prompt of 2 blocks
  EXPECT_EQ(admit(kv, b), 4);                     // only floor((8 - 1) / 4) = 1 block
}

TEST(PrefixCache, ADifferentEarlierBlockBreaksTheChain) {
  KvCacheManager kv(32, 4, true);
  Request a = with_tokens(iota_tokens(12, 0), 1);
  admit(kv, a);
  std::vector<int32_t> t = iota_tokens(12, 0);
  t[1] = 999;  // first block differs, later blocks equal
  Request b = with_tokens(t, 2);
  EXPECT_EQ(admit(kv, b), 0);
}

TEST(PrefixCache, EvictionIsLeastRecentlyFreedFirstAndTailBlocksFirst) {
  KvCacheManager kv(5, 4, true);                  // 4 usable blocks
  Request a = with_tokens(iota_tokens(9, 0), 1);  // blocks: 2 full + 1 partial
  admit(kv, a);
  kv.release(a);  // frees a's partial block to the head, then its full blocks to the tail
  Request b = with_tokens(iota_tokens(9, 500), 2);  // needs 3 blocks: takes the unhashed ones first
  admit(kv, b);
  // One of a's two cached blocks had to go; a's tail block (freed first) is evicted first, so a's
  // first block still hits.
  Request a2 = with_tokens(iota_tokens(9, 0), 3);
  std::vector<int32_t> hits;
  EXPECT_EQ(kv.find_cached_prefix(a2, hits), 4);
}

TEST(PrefixCache, MooncakeStyleHashIdsDriveHitsAcrossBlockSizes) {
  KvCacheManager kv(256, 16, true);
  Request a;
  a.id = 1;
  a.prompt_len = 1100;
  a.prefix_hash_ids = {10, 11, 12};
  a.hash_block_size = 512;
  a.prompt_salt = 1;
  admit(kv, a);
  Request b = a;
  b.id = 2;
  b.block_ids.clear();
  b.block_hashes.clear();
  b.num_hashed_blocks_cached = 0;
  b.num_computed_tokens = 0;
  b.prefix_hash_ids = {10, 11, 99};
  b.prompt_salt = 2;
  EXPECT_EQ(admit(kv, b), 1024);  // two shared 512-token hash blocks = 64 KV blocks
}

// Two requests compute the same blocks at the same time (A in chunks, B admitted between them),
// so blocks 1 and 2 are held twice. As in vLLM both copies stay cached: the lookup gives the older
// copy (B's), and once those are evicted it finds A's.
TEST(PrefixCache, ALookupStillHitsAfterOneCopyOfADuplicatedBlockIsEvicted) {
  KvCacheManager kv(7, 4, true);  // 6 usable blocks
  Request a = with_tokens(iota_tokens(12, 0), 1);
  ASSERT_TRUE(kv.allocate_slots(a, 4));  // A's first chunk: block 0 hashed
  a.num_computed_tokens = 4;
  Request b = with_tokens(iota_tokens(12, 0), 2);
  EXPECT_EQ(admit(kv, b), 4);            // B hits A's block 0, computes blocks 1 and 2 itself
  ASSERT_TRUE(kv.allocate_slots(a, 8));  // A's second chunk: its own copies of blocks 1 and 2
  a.num_computed_tokens = 12;
  std::vector<int32_t> c_tokens = iota_tokens(16, 0);  // the same 12 tokens, then more
  Request c = with_tokens(c_tokens, 3);
  std::vector<int32_t> hits;
  ASSERT_EQ(kv.find_cached_prefix(c, hits), 12);
  EXPECT_EQ(hits, (std::vector<int32_t>{a.block_ids[0], b.block_ids[1], b.block_ids[2]}));

  kv.release(b);  // B's copies go to the free queue's tail, behind the one empty block
  Request x = with_tokens(iota_tokens(12, 500), 4);
  admit(kv, x);  // takes the empty block and B's two copies: evicted
  Request c2 = with_tokens(c_tokens, 5);
  EXPECT_EQ(kv.find_cached_prefix(c2, hits), 12);  // mapping a hash to one block would give 4
  EXPECT_EQ(hits, (std::vector<int32_t>{a.block_ids[0], a.block_ids[1], a.block_ids[2]}));
}

// vLLM's extra keys: cache_salt keys the first block (and so the whole chain), the LoRA name
// every block. The second request of each row, with the same 12 tokens, hits the first's blocks
// only when both keys are equal (at most 2 blocks: the last prompt token is never a hit).
TEST(PrefixCache, RequestsDifferingOnlyInCacheSaltOrLoraNameShareNoBlocks) {
  struct Row {
    const char* salt_a;
    const char* lora_a;
    const char* salt_b;
    const char* lora_b;
    int64_t hit_tokens;
  };
  const std::vector<Row> rows = {
      {"", "", "", "", 8},
      {"tenant-1", "", "tenant-1", "", 8},
      {"tenant-1", "", "tenant-2", "", 0},
      {"tenant-1", "", "", "", 0},
      {"", "", "tenant-1", "", 0},
      {"", "sql-lora", "", "sql-lora", 8},
      {"", "sql-lora", "", "chat-lora", 0},
      {"", "sql-lora", "", "", 0},
      {"tenant-1", "sql-lora", "tenant-1", "sql-lora", 8},
      {"tenant-1", "sql-lora", "tenant-1", "chat-lora", 0},
      {"tenant-1", "sql-lora", "tenant-2", "sql-lora", 0},
  };
  for (const Row& row : rows) {
    KvCacheManager kv(32, 4, true);
    Request a = with_tokens(iota_tokens(12, 0), 1);
    a.cache_salt = row.salt_a;
    a.lora_name = row.lora_a;
    admit(kv, a);
    Request b = with_tokens(iota_tokens(12, 0), 2);
    b.cache_salt = row.salt_b;
    b.lora_name = row.lora_b;
    EXPECT_EQ(admit(kv, b), row.hit_tokens) << "salt " << row.salt_a << "/" << row.salt_b
                                            << ", lora " << row.lora_a << "/" << row.lora_b;
  }
}

// The salt changes block 0's hash, and through the chain every later one; the LoRA name keys each
// block itself.
TEST(PrefixCache, ExtraKeysChangeEveryBlockHashAndAreAbsentWithoutThem) {
  KvCacheManager kv(32, 4, true);
  Request plain = with_tokens(iota_tokens(12, 0), 1);
  Request plain_again = with_tokens(iota_tokens(12, 0), 2);
  Request salted = with_tokens(iota_tokens(12, 0), 3);
  salted.cache_salt = "s";
  Request lora = with_tokens(iota_tokens(12, 0), 4);
  lora.lora_name = "l";
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(kv.block_hash(plain, i), kv.block_hash(plain_again, i)) << i;
    EXPECT_NE(kv.block_hash(plain, i), kv.block_hash(salted, i)) << i;
    EXPECT_NE(kv.block_hash(plain, i), kv.block_hash(lora, i)) << i;
    EXPECT_NE(kv.block_hash(salted, i), kv.block_hash(lora, i)) << i;
  }
}

TEST(PrefixCache, DisabledCachingNeverHits) {
  KvCacheManager kv(32, 4, false);
  Request a = with_tokens(iota_tokens(12, 0), 1);
  admit(kv, a);
  Request b = with_tokens(iota_tokens(12, 0), 2);
  EXPECT_EQ(admit(kv, b), 0);
}

TEST(KvSlots, AllocationFailsWithoutChangeAndTheAdmissionGateCountsTheWholeSequence) {
  KvCacheManager kv(4, 4, false);  // 3 usable
  Request a = with_tokens(iota_tokens(12, 0), 1);
  std::vector<int32_t> none;
  EXPECT_TRUE(kv.can_admit(a, none));
  EXPECT_TRUE(kv.allocate_slots(a, 4));  // a chunk: one block
  Request b = with_tokens(iota_tokens(12, 50), 2);
  EXPECT_FALSE(kv.can_admit(b, none));    // 3 blocks needed, 2 free
  EXPECT_TRUE(kv.allocate_slots(b, 8));   // yet a chunk would fit: the gate reserves nothing
  EXPECT_FALSE(kv.allocate_slots(a, 8));  // a needs 2 more, 0 free
  EXPECT_EQ(a.block_ids.size(), 1u);
  EXPECT_EQ(kv.pool().num_free(), 0);
}

TEST(KvSlots, TheAdmissionGateCountsFreeCachedHitBlocksAsTakenFromTheFreePool) {
  KvCacheManager kv(5, 4, true);                  // 4 usable blocks
  Request a = with_tokens(iota_tokens(8, 0), 1);  // 2 full blocks, both cached
  admit(kv, a);
  kv.release(a);  // nobody references them now: they count among the 4 free blocks
  Request holder = with_tokens(iota_tokens(4, 100), 2);
  admit(kv, holder);  // takes an empty block: 3 free, 2 of them a's cached blocks
  ASSERT_EQ(kv.pool().num_free(), 3);
  Request w = with_tokens(iota_tokens(15, 0), 3);  // 4 blocks; the first 2 hit a's
  std::vector<int32_t> hits;
  ASSERT_EQ(kv.find_cached_prefix(w, hits), 8);
  // Taking the 2 hits removes them from the free queue, so W needs all 4 free blocks: 3 are.
  EXPECT_FALSE(kv.can_admit(w, hits));
  kv.release(holder);
  EXPECT_TRUE(kv.can_admit(w, hits));
}

TEST(KvSlots, TheAdmissionGateCountsHitBlocksAnotherRequestHoldsAsAlreadyHeld) {
  KvCacheManager kv(5, 4, true);                  // 4 usable blocks
  Request a = with_tokens(iota_tokens(8, 0), 1);  // holds 2 cached blocks: 2 free
  admit(kv, a);
  Request w = with_tokens(iota_tokens(15, 0), 2);  // 4 blocks; the first 2 hit a's
  std::vector<int32_t> hits;
  ASSERT_EQ(kv.find_cached_prefix(w, hits), 8);
  EXPECT_TRUE(kv.can_admit(w, hits));  // shares a's 2 blocks, needs the 2 free ones
  EXPECT_TRUE(kv.allocate_slots(w, 7, hits));
  EXPECT_EQ(kv.pool().num_free(), 0);
}

TEST(KvSlots, AllocationCountsFreeCachedHitBlocksAsTakenAndFailsWithoutChange) {
  KvCacheManager kv(5, 4, true);                  // 4 usable blocks
  Request a = with_tokens(iota_tokens(8, 0), 1);  // 2 full blocks, both cached
  admit(kv, a);
  kv.release(a);
  Request holder = with_tokens(iota_tokens(8, 100), 2);
  admit(kv, holder);  // takes the 2 empty blocks: only a's 2 cached blocks are free
  Request w = with_tokens(iota_tokens(12, 0), 3);
  std::vector<int32_t> hits;
  ASSERT_EQ(kv.find_cached_prefix(w, hits), 8);
  // 1 new block plus the 2 hits leaving the free queue: 3 needed, 2 free.
  EXPECT_FALSE(kv.allocate_slots(w, 4, hits));
  EXPECT_TRUE(w.block_ids.empty());
  EXPECT_EQ(kv.pool().num_free(), 2);
  EXPECT_EQ(kv.pool().ref_count(hits[0]), 0);
}

}  // namespace
}  // namespace llm
