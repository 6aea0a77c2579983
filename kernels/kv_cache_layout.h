// The device-side views every kernel shares: one layer of the paged KV cache and the step's page
// table in CSR form. The cache layout is the CPU backend's (backends/cpu/paged_kv_cache.h):
// [block][kv_head][slot][head_dim] per layer, K and V apart, so one head's keys within a block are
// contiguous. Entries are bf16, or fp8 e4m3 holding value / scale (one scale per tensor: K and V
// each have theirs; the stored code times the scale is the value read back).
// The page table lists, for each sequence s of the step, its physical blocks in order:
// indices[indptr[s] .. indptr[s+1]) (FlashInfer's paged-KV form), and last_page_len[s], the tokens
// in its last block.
// Thread-safety: plain views of device memory; the kernels that take them are launched on one
// stream by the caller.
#pragma once

#include <cstdint>

namespace llm::kernels {

// Storage type of KV cache entries.
enum class KvDtype : int32_t { kBf16 = 0, kFp8E4m3 = 1 };

struct PagedKvLayer {
  void* k = nullptr;  // [num_blocks][kv_heads][block_size][head_dim]
  void* v = nullptr;
  int32_t num_blocks = 0;
  int32_t kv_heads = 0;
  int32_t block_size = 0;
  int32_t head_dim = 0;
  KvDtype dtype = KvDtype::kBf16;
  float k_scale = 1.0f;  // fp8 only: stored code = value / k_scale
  float v_scale = 1.0f;
};

struct PageTableView {
  const int32_t* indptr = nullptr;         // [num_seqs + 1]
  const int32_t* indices = nullptr;        // [indptr[num_seqs]] physical block ids
  const int32_t* last_page_len = nullptr;  // [num_seqs]
  int32_t num_seqs = 0;
};

// Bytes of one KV entry of `dtype`.
inline int64_t kv_dtype_bytes(KvDtype dtype) { return dtype == KvDtype::kBf16 ? 2 : 1; }

}  // namespace llm::kernels
