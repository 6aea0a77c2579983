// Paged attention over the KV cache for query rows of any length: a decode step has one row per
// sequence, a prefill chunk one row per prompt token (causal: row attends positions 0..pos of its
// sequence), so chunked prefill and prefix-cache hits read the same cache the same way. One
// thread block takes one (row, KV head, split) and all q heads of that KV head's GQA group; a
// long context is cut into splits of `partition` tokens whose partial softmax results (max,
// sum, weighted values) a second kernel combines.
// Matches backends/cpu/attention.h paged_attention: softmax(q . k * scale) . v over positions
// 0..pos, fp32 throughout, result rounded to bf16 (tolerance: 1e-2 relative + 1e-2 absolute;
// fp8 KV: 7e-2 relative + 3e-2 absolute). Summation order differs from the CPU's sequential one.
// Thread-safety: launches on the caller's stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/kv_cache_layout.h"

namespace llm::kernels {

struct PagedAttentionArgs {
  const uint16_t* q = nullptr;  // [rows][q_stride] bf16, q heads first (the rotated QKV rows)
  int32_t q_stride = 0;
  uint16_t* out = nullptr;           // [rows][q_heads * head_dim] bf16
  const int32_t* row_seq = nullptr;  // [rows] the row's sequence in the page table; < 0: a
                                     // padding row, skipped (its output is left as it was)
  const int32_t* row_pos = nullptr;  // [rows] the row's position: it attends 0..pos
  PageTableView pages;
  PagedKvLayer kv;
  int32_t rows = 0;
  int32_t q_heads = 0;
  float scale = 0;             // softmax scale, 1 / sqrt(head_dim)
  int32_t num_splits = 1;      // splits per row: >= ceil((max pos + 1) / partition)
  int32_t partition = 512;     // tokens per split
  float* workspace = nullptr;  // paged_attention_workspace_floats(...) floats when num_splits > 1
};

// Shapes the kernel takes: head_dim 1..256 (fastest at 64 and 128), GQA groups of 1..16.
bool paged_attention_supports(int32_t head_dim, int32_t group_size);

// Floats of workspace a launch with these shapes needs (0 when num_splits == 1).
int64_t paged_attention_workspace_floats(int32_t rows, int32_t q_heads, int32_t head_dim,
                                         int32_t num_splits);

// Returns cudaErrorInvalidValue for shapes paged_attention_supports rejects.
cudaError_t paged_attention(const PagedAttentionArgs& args, cudaStream_t stream);

}  // namespace llm::kernels
