#include "core/block_pool.h"

#include <stdexcept>

namespace llm {

BlockPool::BlockPool(int32_t num_blocks)
    : by_hash_(static_cast<size_t>(num_blocks > 0 ? num_blocks : 0)) {
  if (num_blocks < 2)
    throw std::invalid_argument("BlockPool needs at least 2 blocks (one is null)");
  blocks_.resize(num_blocks);
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
  for (int32_t i = 0, b = head_; i < n; ++i, b = blocks_[b].next) {
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
  if (head_ != kNone && blocks_[head_].hashed) by_hash_.prefetch(blocks_[head_].hash, head_);
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
  for (int32_t b = head_; b != kNone; b = blocks_[b].next) order.push_back(b);
  return order;
}

void BlockPool::unlink(int32_t b) {
  Block& block = blocks_[b];
  if (!block.in_free_queue) throw std::logic_error("BlockPool: block not in the free queue");
  if (block.prev != kNone) {
    blocks_[block.prev].next = block.next;
  } else {
    head_ = block.next;
  }
  if (block.next != kNone) {
    blocks_[block.next].prev = block.prev;
  } else {
    tail_ = block.prev;
  }
  block.prev = block.next = kNone;
  block.in_free_queue = false;
  --num_free_;
}

void BlockPool::push_head(int32_t b) {
  Block& block = blocks_[b];
  block.prev = kNone;
  block.next = head_;
  if (head_ != kNone) blocks_[head_].prev = b;
  head_ = b;
  if (tail_ == kNone) tail_ = b;
  block.in_free_queue = true;
  ++num_free_;
}

void BlockPool::push_tail(int32_t b) {
  Block& block = blocks_[b];
  block.next = kNone;
  block.prev = tail_;
  if (tail_ != kNone) blocks_[tail_].next = b;
  tail_ = b;
  if (head_ == kNone) head_ = b;
  block.in_free_queue = true;
  ++num_free_;
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
