// How one request's prompt splits by where its KV came from, by the rule of vLLM's
// PromptTokenStats (vllm/v1/metrics/stats.py), counted once when its prefill ends:
// computed = prompt - cached; when every prompt token but the last was a cache hit, that last
// token is "recomputed" (the forward pass needs one input token) and counts as a cache hit too,
// so local_compute + local_cache_hit = prompt + recomputed. vLLM's test is hit + 1 == prompt,
// which a one-token prompt with no hit passes too; we keep it as written. There is no KV
// connector, so nothing is external.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>

namespace llm {

struct PromptTokenSplit {
  int64_t computed = 0;         // prompt_tokens_by_source{source="local_compute"}
  int64_t local_cache_hit = 0;  // prompt_tokens_by_source{source="local_cache_hit"}
  int64_t cached = 0;           // prompt_tokens_cached (the scheduler's num_cached_tokens)
  int64_t recomputed = 0;       // prompt_tokens_recomputed (0 or 1)
};

// `num_cached_tokens` is the prefix-cache hit at first admission (negative: none).
PromptTokenSplit split_prompt_tokens(int64_t prompt_len, int64_t num_cached_tokens);

// vLLM's num_cache_creation_tokens (PrefillStats.finalize in vllm/v1/metrics/stats.py, fed by
// KVCacheManager.estimate_cached_tokens when the prefill ends): the prompt tokens covered by the
// request's hashed (full) blocks beyond the hit it found, i.e. what it wrote into the prefix
// cache; usage.prompt_tokens_details.created_cache_tokens. 0 without prefix caching.
int64_t cache_creation_tokens(int64_t prompt_len, int64_t num_cached_tokens, int64_t block_size,
                              bool prefix_caching);

}  // namespace llm
