// Maps requests to KV blocks: prefix-cache lookup, slot allocation for a step's new tokens, the
// admission check for waiting requests, and release. Owns the BlockPool and the prefix-cache
// counters (in tokens).
//
// A full block's identity is a chained hash: hash(previous block's hash, the block's content key,
// vLLM's extra keys). The content key comes from the token ids when the request has them, else
// from the trace's prefix hash ids, else from a per-request salt (content nobody else shares). The
// extra keys are the LoRA name (every block) and cache_salt (the first block, hence the whole
// chain); a request with neither hashes without them.
//
// KV-cache events (core/kv_events.h) are off until enable_kv_events(); then each allocation that
// caches full blocks appends one KvBlockStored (as vLLM's cache_full_blocks), the pool appends
// evictions and resets, and take_kv_events() hands them over in order.
// Thread-safety: none; owned by one engine.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/block_pool.h"
#include "core/ceil_div.h"
#include "core/kv_events.h"
#include "core/request.h"

namespace llm {

struct PrefixCacheCounters {
  int64_t queries = 0;  // prompt tokens looked up (each new request once, at admission)
  int64_t hits = 0;     // of those, tokens found cached
};

class KvCacheManager {
 public:
  KvCacheManager(int32_t num_blocks, int32_t block_size, bool enable_prefix_caching);

  int32_t block_size() const { return block_size_; }
  bool prefix_caching() const { return caching_; }
  const BlockPool& pool() const { return pool_; }
  double usage() const { return pool_.usage(); }
  const PrefixCacheCounters& counters() const { return counters_; }

  // Longest cached prefix of a request with nothing computed, in whole blocks; never includes the
  // last token (so at most floor((num_tokens - 1) / block_size) blocks). Fills hit_blocks.
  int64_t find_cached_prefix(Request& request, std::vector<int32_t>& hit_blocks);

  // The same lookup without memoizing hashes in the request (for checks and reports).
  int64_t peek_cached_prefix(const Request& request, std::vector<int32_t>& hit_blocks) const;

  // Admission gate for a waiting request: can the blocks for its whole current sequence be had,
  // counting hit blocks as held (those nobody references still use a free block)? Reserves nothing.
  bool can_admit(const Request& request, std::span<const int32_t> hit_blocks) const;

  // Gives the request KV slots for num_new_tokens tokens after its computed ones (and after
  // hit_blocks, which it takes first). Registers the blocks that become full in the prefix cache.
  // Returns false, changing nothing, when the pool cannot supply the blocks.
  bool allocate_slots(Request& request, int64_t num_new_tokens,
                      std::span<const int32_t> hit_blocks = {});

  // Releases all of a request's blocks (hashed ones stay cached, evictable).
  void release(Request& request);

  // Counts one admitted new request's lookup in the prefix-cache counters.
  void record_lookup(int64_t prompt_tokens, int64_t hit_tokens);

  // Forgets every cached block when no request holds any (vLLM's reset_prefix_cache); false,
  // changing nothing, otherwise.
  bool reset_prefix_cache() { return pool_.reset_prefix_cache(); }

  // Starts collecting KV-cache events (idempotent). Until then nothing is collected.
  void enable_kv_events();
  bool kv_events_enabled() const { return events_ != nullptr; }
  // The events since the previous call, oldest first (empty when not enabled).
  std::vector<KvEvent> take_kv_events();

  // Starts sampling block residency (--kv-cache-metrics, core/kv_block_residency.h) with the
  // given rate in (0, 1]. As in vLLM, only evictions from the prefix cache are observed, so
  // without prefix caching nothing is.
  void enable_residency_metrics(double sample_rate);
  bool residency_enabled() const { return residency_ != nullptr; }
  // The engine clock for residency (the scheduler sets it at each decision).
  void set_time(Nanos now) {
    if (residency_) residency_->set_time(now);
  }
  // The residency observations since the previous call (empty when not enabled).
  KvResidencyObservations take_residency();

  // Chained hash of block `index` (full blocks only), computing earlier ones as needed.
  // Only the request is changed (its memoized hashes).
  uint64_t block_hash(Request& request, int64_t index) const;

 private:
  uint64_t content_key(const Request& request, int64_t index) const;
  uint64_t chain(uint64_t parent, const Request& request, int64_t index) const;
  int64_t blocks_for(int64_t tokens) const { return ceil_div(tokens, block_size_); }
  // The lookup walk shared by find_ and peek_cached_prefix: hash_of(i) gives block i's hash, called
  // for i = 0, 1, ... until the first miss. Fills hit_blocks; returns the hit tokens.
  template <typename HashOf>
  int64_t walk_cached_prefix(const Request& request, HashOf&& hash_of,
                             std::vector<int32_t>& hit_blocks) const;
  // The KvBlockStored for the request's full blocks [first, end), all hashed.
  KvBlockStored stored_event(const Request& request, int64_t first, int64_t end) const;
  // Hit blocks nobody references: taking them removes them from the free queue.
  int64_t count_unreferenced(std::span<const int32_t> hit_blocks) const;

  BlockPool pool_;
  int32_t block_size_;
  bool caching_;
  PrefixCacheCounters counters_;
  // Heap-held so the pool's pointer to it stays valid if the manager moves; null when disabled.
  std::unique_ptr<std::vector<KvEvent>> events_;
  std::unique_ptr<KvBlockResidency> residency_;
};

}  // namespace llm
