// Which CUDA graph a decode step replays. Decode steps (every sequence computes one token) are
// captured once per batch-size bucket, 1, 2, 4, ..., 256, and a step of B sequences replays the
// smallest bucket >= B with the rest padded; prefill and mixed steps, and decode batches above
// the largest bucket (or above --max-num-seqs' bucket), run eagerly.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <vector>

namespace llm {

inline constexpr int32_t kMaxGraphBucket = 256;

// The buckets captured for an engine of max_num_seqs: the powers of two from 1 up to the first
// one >= max_num_seqs, capped at kMaxGraphBucket.
std::vector<int32_t> decode_graph_buckets(int64_t max_num_seqs);

// The bucket a decode batch of `batch` sequences replays, or 0 when it runs eagerly (batch <= 0
// or above every bucket).
int32_t decode_graph_bucket(int64_t batch, const std::vector<int32_t>& buckets);

}  // namespace llm
