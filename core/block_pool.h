// The pool of paged KV blocks with its prefix cache: reference counts, a free queue ordered for LRU
// eviction, and the map from a full block's chained hash to every block that holds it (as in vLLM,
// requests that computed the same block concurrently each keep their copy; a lookup gives the
// oldest copy still cached, so it hits until the last copy is evicted).
//
// Block 0 is the reserved null block and never handed out, so usable = total - 1. A free block
// with a hash is still a cache entry: it is reused (and its hash evicted) only when it reaches the
// head of the free queue. Freed blocks with a hash go to the tail (evicted last), blocks without
// one to the head (reused first).
//
// The free queue is an array ring of block ids, not a linked list: allocating walks it in memory
// order (a linked list in LRU order costs one dependent cache miss per block). A block that leaves
// the queue from the middle (a cache hit) leaves a stale entry behind, skipped when the head
// reaches it; when the ring fills up, its live entries are packed to the front in order.
//
// With an event sink set, every hash evicted is appended to it as a KvBlockRemoved (one per
// block, as vLLM does) and a prefix-cache reset as KvAllBlocksCleared (core/kv_events.h).
// Thread-safety: none; owned by one engine.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/block_hash_map.h"
#include "core/kv_block_residency.h"
#include "core/kv_events.h"

namespace llm {

class BlockPool {
 public:
  static constexpr int32_t kNone = -1;

  explicit BlockPool(int32_t num_blocks);

  int32_t num_blocks() const { return static_cast<int32_t>(blocks_.size()); }
  int32_t num_usable() const { return num_blocks() - 1; }
  int32_t num_free() const { return num_free_; }  // includes cached blocks nobody references
  int32_t num_used() const { return num_usable() - num_free_; }
  double usage() const;  // 1 - free / usable, in [0, 1]

  int32_t ref_count(int32_t block) const { return blocks_[block].ref_count; }
  bool has_hash(int32_t block) const { return blocks_[block].hashed; }
  size_t num_cached_hashes() const { return by_hash_.size(); }  // distinct hashes

  // The oldest block caching this hash, or kNone.
  int32_t lookup(uint64_t hash) const;
  // Takes one reference on each block (a cache hit); unreferenced blocks leave the free queue.
  void take(std::span<const int32_t> blocks);
  // Pops n blocks from the head of the free queue (evicting their hashes) and references them.
  // Returns false, changing nothing, when fewer than n are free.
  bool allocate(int32_t n, std::vector<int32_t>& out);
  // Drops one reference from each block, walking from the last to the first.
  void release(std::span<const int32_t> blocks);
  // Brings in what lookup(hash) and cache(block, hash) will read (block may be kNone); no effect
  // on the pool's state.
  void prefetch_hash(uint64_t hash, int32_t block = kNone) const {
    by_hash_.prefetch(hash, block);
    if (block > 0 && block < num_blocks()) prefetch_line(&blocks_[block]);
  }
  // Registers a full block's hash. If other blocks already cache the same content this one is
  // added as the newest copy (lookups keep finding the oldest). A block hashed already is left as
  // it is.
  void cache(int32_t block, uint64_t hash);

  // Forgets every cached hash, as vLLM's reset_prefix_cache: only when no block is referenced
  // (returns false, changing nothing, otherwise). The free-queue order is kept.
  bool reset_prefix_cache();

  // Where evictions and resets are reported from now on; null (the default) reports nothing.
  // The sink must outlive the pool or be unset first.
  void set_event_sink(std::vector<KvEvent>* sink) { events_ = sink; }
  // Where block residency is reported (--kv-cache-metrics): allocations, prefix-cache hits,
  // evictions and resets. Null (the default) reports nothing; must outlive the pool or be unset.
  void set_residency(KvBlockResidency* residency) { residency_ = residency; }

  // Free-queue order from the head (next to reuse) to the tail; for tests.
  std::vector<int32_t> free_queue() const;

 private:
  struct Block {
    uint64_t hash = 0;
    uint64_t queue_pos = 0;  // its entry in ring_ (while in the free queue)
    int32_t ref_count = 0;
    bool hashed = false;
    bool in_free_queue = false;
  };

  // Whether ring_'s entry at position pos is a block still in the free queue (else stale).
  bool live(uint64_t pos) const {
    const Block& b = blocks_[ring_[pos & ring_mask_]];
    return b.in_free_queue && b.queue_pos == pos;
  }
  void unlink(int32_t block);
  void push_head(int32_t block);
  void push_tail(int32_t block);
  void make_room();                 // packs the live entries when the ring is full
  void evict_hash(int32_t block);   // reports the eviction to the event sink
  void prefetch_head() const;       // brings in what evicting the head's hash will read
  uint64_t unindex(int32_t block);  // forgets a hashed block's hash; returns it

  std::vector<Block> blocks_;
  BlockHashMap by_hash_;
  // The free queue: positions [head_, tail_) of ring_ (index pos & ring_mask_), from the next
  // block to reuse to the last; stale entries among them are skipped. Positions wrap modulo
  // 2^64; the entry at head_ is live whenever the queue is not empty.
  std::vector<int32_t> ring_;
  uint64_t ring_mask_ = 0;
  uint64_t head_ = 0;
  uint64_t tail_ = 0;
  int32_t num_free_ = 0;
  std::vector<KvEvent>* events_ = nullptr;  // not owned
  KvBlockResidency* residency_ = nullptr;   // not owned
};

}  // namespace llm
