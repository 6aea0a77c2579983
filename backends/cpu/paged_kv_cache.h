// PagedKvCache: the CPU backend's K and V storage for the engine's paged KV blocks. A block id
// from the scheduler's block manager indexes block_size token slots; per layer, a block holds
// every KV head's slots. V is laid out [layer][block][kv_head][slot][head_dim] (a slot's values
// contiguous, for the weighted sum) and K [layer][block][kv_head][head_dim][slot] (transposed
// within the block: one dimension of every slot contiguous, so a block's scores come out of one
// vector of slots at a time). Memory is reserved, not touched, until written.
// Thread-safety: plain storage; concurrent writers must touch different slots.
#pragma once

#include <cstdint>

#include "backends/cpu/huge_buffer.h"

namespace llm {

struct PagedKvCache {
  int64_t num_blocks = 0;
  int64_t num_layers = 0;
  int64_t kv_heads = 0;
  int64_t head_dim = 0;
  int64_t block_size = 0;
  FloatBuffer k;  // huge_buffer.h: on huge pages where the kernel allows
  FloatBuffer v;

  PagedKvCache() = default;
  PagedKvCache(int64_t num_blocks, int64_t num_layers, int64_t kv_heads, int64_t head_dim,
               int64_t block_size);

  // Offset of (layer, block, head)'s block_size x head_dim values in k and in v.
  int64_t head_offset(int64_t layer, int64_t block, int64_t head) const {
    return ((layer * num_blocks + block) * kv_heads + head) * block_size * head_dim;
  }
  // Where slot's key dimension i is in k, and where slot's value row (head_dim values) is in v.
  int64_t k_index(int64_t layer, int64_t block, int64_t head, int64_t slot, int64_t i) const {
    return head_offset(layer, block, head) + i * block_size + slot;
  }
  int64_t v_offset(int64_t layer, int64_t block, int64_t head, int64_t slot) const {
    return head_offset(layer, block, head) + slot * head_dim;
  }
};

}  // namespace llm
