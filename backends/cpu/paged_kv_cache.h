// PagedKvCache: the CPU backend's K and V storage for the engine's paged KV blocks. A block id
// from the scheduler's block manager indexes block_size token slots; per layer, a block holds
// every KV head's slots, laid out [layer][block][kv_head][slot][head_dim] (K and V apart), so one
// head's keys within a block are contiguous. Memory is reserved, not touched, until written.
// Thread-safety: plain storage; concurrent writers must touch different slots.
#pragma once

#include <cstdint>
#include <memory>

namespace llm {

struct PagedKvCache {
  int64_t num_blocks = 0;
  int64_t num_layers = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t block_size = 0;
  std::unique_ptr<float[]> k;
  std::unique_ptr<float[]> v;

  PagedKvCache() = default;
  PagedKvCache(int64_t num_blocks, int64_t num_layers, int64_t kv_heads, int64_t head_dim,
               int64_t block_size);

  // Offset of (layer, block, head, slot)'s head_dim values in k and v.
  int64_t offset(int64_t layer, int64_t block, int64_t head, int64_t slot) const {
    return (((layer * num_blocks + block) * kv_heads + head) * block_size + slot) * head_dim;
  }
};

}  // namespace llm
