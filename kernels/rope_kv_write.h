// RoPE on the step's fused QKV rows fused with the write of K and V into each token's slot of the
// paged cache. Matches backends/cpu/rope.h (rope_angles, apply_rope) and CpuBackend's KV write:
// the angle pos * inv_freq[i] is taken in double and its cos/sin rounded to float once, as the CPU
// does, so the rotation is the CPU's up to the bf16 rounding of the inputs and outputs
// (tolerance: 1e-2 relative + 1e-2 absolute; fp8 KV: 7e-2 relative + 2e-2 absolute).
// inv_freq carries every scaling (llama3 factors, linear) already applied on the host
// (backends/cpu/rope.cpp rope_inv_freq), so the kernel is the same for every RoPE variant.
// Layouts: kRotateHalf pairs dimension i with i + head_dim/2 (Hugging Face, NeoX; what
// backends/model loads every model into), kInterleaved pairs 2i with 2i+1 (GGUF's llama
// layout, for weights kept as stored).
// Thread-safety: launches on the caller's stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/kv_cache_layout.h"

namespace llm::kernels {

enum class RopeLayout : int32_t { kRotateHalf = 0, kInterleaved = 1 };

struct RopeKvWriteArgs {
  uint16_t* qkv = nullptr;             // [tokens][row_stride] bf16: q heads, k heads, v heads
  int32_t row_stride = 0;              // >= (q_heads + 2 * kv_heads) * head_dim
  const float* q_bias = nullptr;       // [q_heads * head_dim] or null; added before the rotation
  const float* k_bias = nullptr;       // [kv_heads * head_dim] or null
  const float* v_bias = nullptr;       // [kv_heads * head_dim] or null
  const double* inv_freq = nullptr;    // [head_dim / 2]
  const int32_t* token_seq = nullptr;  // [tokens] the token's sequence in the page table; < 0:
                                       // a padding token (rotated, never written to the cache)
  const int32_t* token_pos = nullptr;  // [tokens] absolute position in its sequence
  PageTableView pages;
  PagedKvLayer kv;
  int32_t tokens = 0;
  int32_t q_heads = 0;
  RopeLayout layout = RopeLayout::kRotateHalf;
};

// Adds the biases, rotates q (in place, in qkv) and k, and stores k and v at slot pos % block_size
// of block indices[indptr[seq] + pos / block_size].
cudaError_t rope_kv_write(const RopeKvWriteArgs& args, cudaStream_t stream);

}  // namespace llm::kernels
