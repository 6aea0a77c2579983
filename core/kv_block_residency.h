// KV block residency sampling, as vLLM's KVCacheMetricsCollector (vllm/v1/core/kv_cache_metrics.py,
// --kv-cache-metrics): a sampled share of block allocations is followed until the block is
// reused for other content, and then yields its lifetime (allocation to eviction), its idle time
// before eviction (last access to eviction) and the gaps between its last (up to 4) accesses.
//
// The BlockPool reports (vLLM's hooks): on_allocated when a block leaves the free queue for new
// content (each allocation sampled with probability sample_rate); on_accessed when a prefix-cache
// hit takes it (vLLM's touch()); on_evicted when the free queue hands it out again (vLLM's
// _maybe_evict_cached_block, called for every block popped, hashed or not, before it is
// allocated anew); reset on a prefix-cache reset (states dropped, nothing observed).
// Time is the engine's clock, set by the scheduler at each decision (set_time); sampling draws
// from a seeded Rng, so a run is reproducible (vLLM uses random.random()).
// Thread-safety: none; owned by one engine's BlockPool.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/clock.h"
#include "core/rng.h"

namespace llm {

// Seconds observed since the last take(), in the order they occurred.
struct KvResidencyObservations {
  std::vector<double> lifetime_s;   // vllm:kv_block_lifetime_seconds
  std::vector<double> idle_s;       // vllm:kv_block_idle_before_evict_seconds
  std::vector<double> reuse_gap_s;  // vllm:kv_block_reuse_gap_seconds
  bool empty() const { return lifetime_s.empty() && reuse_gap_s.empty(); }
};

class KvBlockResidency {
 public:
  static constexpr uint64_t kDefaultSeed = 0x6b76726573ULL;  // fixed: runs are reproducible
  static constexpr size_t kAccessHistory = 4;                // vLLM's deque(maxlen=4)

  // sample_rate in (0, 1]: the probability that an allocation is followed.
  KvBlockResidency(int32_t num_blocks, double sample_rate, uint64_t seed = kDefaultSeed);

  void set_time(Nanos now) { now_ = now; }
  void on_allocated(int32_t block);
  void on_accessed(int32_t block);
  void on_evicted(int32_t block);
  void reset();

  // The observations since the previous call.
  KvResidencyObservations take();
  size_t num_sampled() const;  // blocks followed now; for tests

 private:
  struct State {
    bool sampled = false;
    Nanos birth = 0;
    Nanos last_access = 0;
    std::array<Nanos, kAccessHistory> history{};  // ring: the last accesses
    size_t num_accesses = 0;                      // all accesses; the ring keeps the last 4
  };

  std::vector<State> states_;
  double sample_rate_;
  Rng rng_;
  Nanos now_ = 0;
  KvResidencyObservations pending_;
};

}  // namespace llm
