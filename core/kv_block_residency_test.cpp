// KV block residency sampling (vLLM's KVCacheMetricsCollector): what a followed block yields at
// eviction, the ring of its last accesses, sampling, resets, and the BlockPool's hooks.
#include "core/kv_block_residency.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/block_pool.h"

namespace llm {
namespace {

constexpr Nanos kSecond = 1'000'000'000;

using Seconds = std::vector<double>;

// One block's life at sample rate 1: allocated at `born`, accessed at `accesses`, evicted at
// `evicted` (seconds).
KvResidencyObservations life(double born, const Seconds& accesses, double evicted) {
  KvBlockResidency r(4, 1.0);
  r.set_time(static_cast<Nanos>(born * kSecond));
  r.on_allocated(2);
  for (double t : accesses) {
    r.set_time(static_cast<Nanos>(t * kSecond));
    r.on_accessed(2);
  }
  r.set_time(static_cast<Nanos>(evicted * kSecond));
  r.on_evicted(2);
  return r.take();
}

TEST(KvBlockResidency, EvictionYieldsLifetimeIdleTimeAndTheGapsOfTheLastFourAccesses) {
  struct Case {
    const char* what;
    double born;
    Seconds accesses;
    double evicted;
    double lifetime, idle;
    Seconds gaps;
  };
  const Case cases[] = {
      {"never accessed: idle since allocation", 1, {}, 3, 2, 2, {}},
      {"one access: no gap", 1, {2}, 5, 4, 3, {}},
      {"three accesses: two gaps", 0, {1, 3, 6}, 10, 10, 4, {2, 3}},
      {"five accesses: the ring keeps the last four", 1, {2, 4, 7, 8, 10}, 15, 14, 5, {3, 1, 2}},
  };
  for (const Case& c : cases) {
    const KvResidencyObservations o = life(c.born, c.accesses, c.evicted);
    EXPECT_EQ(o.lifetime_s, Seconds{c.lifetime}) << c.what;
    EXPECT_EQ(o.idle_s, Seconds{c.idle}) << c.what;
    EXPECT_EQ(o.reuse_gap_s, c.gaps) << c.what;
  }
}

TEST(KvBlockResidency, OnlySampledBlocksAreFollowedAndEachEvictionCountsOnce) {
  KvBlockResidency r(4, 1.0);
  r.on_accessed(1);  // never allocated: nothing
  r.on_evicted(1);
  EXPECT_TRUE(r.take().empty());
  r.on_allocated(1);
  EXPECT_EQ(r.num_sampled(), 1u);
  r.on_evicted(1);
  r.on_evicted(1);  // followed no more
  EXPECT_EQ(r.take().lifetime_s.size(), 1u);
  EXPECT_TRUE(r.take().empty());  // taken
}

TEST(KvBlockResidency, AResetForgetsEveryBlockWithoutObservingIt) {
  KvBlockResidency r(4, 1.0);
  r.on_allocated(1);
  r.on_allocated(3);
  r.reset();
  EXPECT_EQ(r.num_sampled(), 0u);
  r.on_evicted(1);
  r.on_evicted(3);
  EXPECT_TRUE(r.take().empty());
}

TEST(KvBlockResidency, SamplingFollowsTheRateAndIsReproducible) {
  const auto sampled = [](double rate, uint64_t seed) {
    KvBlockResidency r(2, rate, seed);
    size_t n = 0;
    for (int i = 0; i < 4000; ++i) {
      r.on_allocated(1);
      n += r.num_sampled();
    }
    return n;
  };
  const size_t quarter = sampled(0.25, 7);
  EXPECT_GT(quarter, 900u);
  EXPECT_LT(quarter, 1100u);
  EXPECT_EQ(sampled(0.25, 7), quarter);
  EXPECT_EQ(sampled(1.0, 7), 4000u);
  EXPECT_THROW(KvBlockResidency(2, 0.0), std::invalid_argument);
  EXPECT_THROW(KvBlockResidency(2, 1.5), std::invalid_argument);
}

// The pool's hooks: a hit is an access, reuse of a free block an eviction (hashed or not), a
// prefix-cache reset forgets.
TEST(KvBlockResidency, TheBlockPoolReportsAllocationsHitsEvictionsAndResets) {
  BlockPool pool(3);  // 2 usable
  KvBlockResidency r(pool.num_blocks(), 1.0);
  pool.set_residency(&r);
  std::vector<int32_t> got;
  r.set_time(0);
  ASSERT_TRUE(pool.allocate(2, got));  // both followed from 0
  pool.cache(got[0], 11);
  pool.cache(got[1], 12);
  pool.release(got);
  r.set_time(2 * kSecond);
  pool.take(std::vector<int32_t>{got[0]});  // a hit at 2 s
  r.set_time(3 * kSecond);
  pool.release(std::vector<int32_t>{got[0]});
  std::vector<int32_t> again;
  r.set_time(5 * kSecond);
  ASSERT_TRUE(pool.allocate(2, again));  // both evicted at 5 s, followed anew
  const KvResidencyObservations o = r.take();
  EXPECT_EQ(o.lifetime_s, (Seconds{5, 5}));
  Seconds idle = o.idle_s;
  std::sort(idle.begin(), idle.end());
  EXPECT_EQ(idle, (Seconds{3, 5}));  // the hit block last accessed at 2 s
  EXPECT_TRUE(o.reuse_gap_s.empty());
  pool.release(again);
  ASSERT_TRUE(pool.reset_prefix_cache());
  EXPECT_EQ(r.num_sampled(), 0u);
}

}  // namespace
}  // namespace llm
