#include "backends/cpu/paged_kv_cache.h"

#include <stdexcept>
#include <string>

namespace llm {

PagedKvCache::PagedKvCache(int64_t num_blocks_, int64_t num_layers_, int64_t kv_heads_,
                           int64_t head_dim_, int64_t block_size_)
    : num_blocks(num_blocks_),
      num_layers(num_layers_),
      kv_heads(kv_heads_),
      head_dim(head_dim_),
      block_size(block_size_) {
  if (num_blocks <= 0 || block_size <= 0) {
    throw std::invalid_argument("cpu backend: num_blocks and block_size must be positive (got " +
                                std::to_string(num_blocks) + ", " + std::to_string(block_size) +
                                ")");
  }
  const int64_t n = num_layers * num_blocks * kv_heads * block_size * head_dim;
  // Uninitialised: pages are only committed once written.
  k = allocate_floats(static_cast<size_t>(n));
  v = allocate_floats(static_cast<size_t>(n));
}

}  // namespace llm
