// Causal attention of one query head over a sequence's paged KV cache. Scores for positions
// 0..pos are taken in position order, then a two-pass softmax (max, then exp and a sequential sum)
// and the weighted sum of values in position order: the result depends only on the query and the
// stored K/V values, never on how the prefill was chunked, what else is in the batch, or which
// physical blocks hold the positions.
// Thread-safety: pure apart from writing out and the caller's scratch.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "backends/cpu/paged_kv_cache.h"

namespace llm {

// q and out: head_dim values. block_table: the sequence's block ids in order (covering pos).
// scale: the softmax scale (1/sqrt(head_dim)). scores: scratch, resized as needed.
void paged_attention(const float* q, const PagedKvCache& kv, int64_t layer, int64_t kv_head,
                     std::span<const int32_t> block_table, int64_t pos, float scale,
                     std::vector<float>& scores, float* out);

}  // namespace llm
