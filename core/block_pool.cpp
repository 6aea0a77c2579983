#include "core/block_pool.h"

#include <stdexcept>

namespace llm {

BlockPool::BlockPool(int32_t num_blocks)
    : by_hash_(static_cast<size_t>(num_blocks > 0 ? num_blocks : 0)) {
  if (num_blocks < 2)
    throw std::invalid_argument("BlockPool needs at least 2 blocks (one is null)");
  blocks_.resize(num_blocks);
  size_t capacity = 16;  // at least twice the blocks: packing is then at most every other push
  while (capacity < 2 * static_cast<size_t>(num_blocks)) capacity *= 2;
  ring_.resize(capacity);
  ring_mask_ = capacity - 1;
  for (int32_t b = 1; b < num_blocks; ++b) push_tail(b);
}

double BlockPool::usage() const {
  return 1.0 - static_cast<double>(num_free_) / static_cast<double>(num_usable());
}

int32_t BlockPool::lookup(uint64_t hash) const { return by_hash_.find(hash); }

void BlockPool::take(std::span<const int32_t> blocks) {
  for (int32_t b : blocks) {
    Block& block = blocks_[b];
    if (block.ref_count == 0) unlink(b);
    ++block.ref_count;
    if (residency_) residency_->on_accessed(b);  // vLLM's touch()
  }
}

bool BlockPool::allocate(int32_t n, std::vector<int32_t>& out) {
  if (n > num_free_) return false;
  if (n <= 0) return true;
  // The n blocks are the free queue's first n: walk them first, asking for the hash-table lines
  // their evictions read, so that those loads overlap instead of missing one after another.
  const size_t first = out.size();
  for (uint64_t pos = head_; out.size() - first < static_cast<size_t>(n); ++pos) {
    if (!live(pos)) continue;
    const int32_t b = ring_[pos & ring_mask_];
    if (blocks_[b].hashed) by_hash_.prefetch(blocks_[b].hash, b);
    out.push_back(b);
  }
  for (size_t k = first; k < out.size(); ++k) {
    const int32_t b = out[k];  // the head now
    unlink(b);
    if (residency_) residency_->on_evicted(b);  // vLLM: before the hash check, every block
    evict_hash(b);
    blocks_[b].ref_count = 1;
    if (residency_) residency_->on_allocated(b);
  }
  prefetch_head();  // the next allocation (this step's next request, most often) evicts it
  return true;
}

void BlockPool::prefetch_head() const {
  if (num_free_ == 0) return;
  const int32_t head = ring_[head_ & ring_mask_];
  if (blocks_[head].hashed) by_hash_.prefetch(blocks_[head].hash, head);
}

void BlockPool::release(std::span<const int32_t> blocks) {
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    Block& block = blocks_[*it];
    if (block.ref_count <= 0) throw std::logic_error("BlockPool: releasing an unreferenced block");
    if (--block.ref_count == 0) {
      if (block.hashed) {
        push_tail(*it);
      } else {
        push_head(*it);
      }
    }
  }
}

void BlockPool::cache(int32_t block, uint64_t hash) {
  Block& b = blocks_[block];
  if (b.hashed) return;
  b.hashed = true;
  b.hash = hash;
  by_hash_.insert(hash, block);
}

bool BlockPool::reset_prefix_cache() {
  if (num_used() != 0) return false;
  for (int32_t b = 1; b < num_blocks(); ++b) {
    if (blocks_[b].hashed) unindex(b);
  }
  if (events_) events_->push_back(KvAllBlocksCleared{});
  if (residency_) residency_->reset();
  return true;
}

std::vector<int32_t> BlockPool::free_queue() const {
  std::vector<int32_t> order;
  for (uint64_t pos = head_; pos != tail_; ++pos) {
    if (live(pos)) order.push_back(ring_[pos & ring_mask_]);
  }
  return order;
}

void BlockPool::unlink(int32_t b) {
  Block& block = blocks_[b];
  if (!block.in_free_queue) throw std::logic_error("BlockPool: block not in the free queue");
  block.in_free_queue = false;
  --num_free_;
  if (num_free_ == 0) {
    head_ = tail_ = 0;  // nothing live: every entry is stale
    return;
  }
  while (!live(head_)) ++head_;  // the head stays live (this ends: num_free_ > 0)
}

void BlockPool::push_head(int32_t b) {
  make_room();
  --head_;
  ring_[head_ & ring_mask_] = b;
  blocks_[b].queue_pos = head_;
  blocks_[b].in_free_queue = true;
  ++num_free_;
}

void BlockPool::push_tail(int32_t b) {
  make_room();
  ring_[tail_ & ring_mask_] = b;
  blocks_[b].queue_pos = tail_;
  blocks_[b].in_free_queue = true;
  ++tail_;
  ++num_free_;
}

void BlockPool::make_room() {
  if (tail_ - head_ < ring_.size()) return;
  // Full of entries, at most half of them live (ring_ holds twice the blocks): pack the live
  // ones, in order, from position 0.
  std::vector<int32_t> packed;
  packed.reserve(static_cast<size_t>(num_free_));
  for (uint64_t pos = head_; pos != tail_; ++pos) {
    if (live(pos)) packed.push_back(ring_[pos & ring_mask_]);
  }
  head_ = 0;
  tail_ = 0;
  for (const int32_t b : packed) {
    ring_[tail_] = b;
    blocks_[b].queue_pos = tail_++;
  }
}

void BlockPool::evict_hash(int32_t b) {
  if (!blocks_[b].hashed) return;
  const uint64_t hash = unindex(b);
  if (events_) events_->push_back(KvBlockRemoved{{hash}});
}

uint64_t BlockPool::unindex(int32_t b) {
  Block& block = blocks_[b];
  if (!by_hash_.erase(block.hash, b)) throw std::logic_error("BlockPool: hashed block not indexed");
  const uint64_t hash = block.hash;
  block.hashed = false;
  block.hash = 0;
  return hash;
}

}  // namespace llm
