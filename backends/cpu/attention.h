// Causal attention of query heads over a sequence's paged KV cache, vectorised over positions.
// Each position's score is a dot product in a fixed order (eight partial sums over the head
// dimension) taken a vector of slots at a time from the block's transposed keys; then a two-pass
// softmax (the max, then fast_exp.h's exp and a sum in lanes of position mod the vector width with
// a fixed tree) and the weighted sum of values in position order (even and odd positions apart,
// then added). Every order depends only on pos and head_dim, so the result depends only on the
// query and the stored K/V values, never on how the prefill was chunked, what else is in the
// batch, which physical blocks hold the positions, or how many heads were computed together.
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

// The same for `heads` query heads that share kv_head (grouped-query attention), their queries
// and outputs consecutive (heads x head_dim values): each head's output has the bits of
// paged_attention of that head alone; the heads share the loads of the keys and values.
// prefetch: fetch each next KV block ahead of use (AVX-512), for a sequence whose blocks are not
// in cache yet; the later tokens of a prefill, which read the blocks the token before them just
// read, go faster without it. It never changes the result.
void paged_attention(const float* q, int64_t heads, const PagedKvCache& kv, int64_t layer,
                     int64_t kv_head, std::span<const int32_t> block_table, int64_t pos,
                     float scale, std::vector<float>& scores, float* out, bool prefetch = true);

}  // namespace llm
