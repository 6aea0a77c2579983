#include "core/prompt_token_stats.h"

#include <algorithm>

namespace llm {

PromptTokenSplit split_prompt_tokens(int64_t prompt_len, int64_t num_cached_tokens) {
  PromptTokenSplit s;
  s.cached = std::clamp<int64_t>(num_cached_tokens, 0, prompt_len);
  s.recomputed = s.cached + 1 == prompt_len ? 1 : 0;
  s.computed = prompt_len - s.cached;
  s.local_cache_hit = s.cached + s.recomputed;
  return s;
}

int64_t cache_creation_tokens(int64_t prompt_len, int64_t num_cached_tokens, int64_t block_size,
                              bool prefix_caching) {
  if (!prefix_caching || block_size <= 0 || prompt_len <= 0) return 0;
  const int64_t hashed = prompt_len / block_size * block_size;  // full blocks at prefill end
  return std::max<int64_t>(0,
                           std::min(hashed, prompt_len) - std::max<int64_t>(num_cached_tokens, 0));
}

}  // namespace llm
