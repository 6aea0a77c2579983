// StepLayout: everything the CUDA backend's kernels need to know about one engine step, built on
// the host once per step and uploaded in one copy: the token ids, each token's sequence and
// position, the page table in CSR form (indptr, indices, last-page length; FlashInfer's paged-KV
// form, kernels/kv_cache_layout.h) and the rows the LM head and sampler take (the last token of
// each sampling sequence). All of it lives in one int32 array (`packed`) at the offsets below,
// so the device copy is a single cudaMemcpyAsync.
// Thread-safety: plain data; build_step_layout reuses the layout's buffers (one engine thread).
#pragma once

#include <cstdint>
#include <vector>

#include "core/scheduler.h"

namespace llm {

struct StepLayout {
  int32_t num_tokens = 0;   // tokens computed this step (T)
  int32_t num_seqs = 0;     // sequences with at least one token this step (S)
  int32_t num_samples = 0;  // sequences that sample (R)
  int32_t max_context = 0;  // the longest context a token attends (its position + 1)
  bool pure_decode = true;  // every sequence computes exactly one token
  // Offsets into `packed` (int32 elements) of each array:
  int64_t token_ids = 0;      // [T]
  int64_t token_seq = 0;      // [T] index of the token's sequence in the page table (0..S-1)
  int64_t token_pos = 0;      // [T] absolute position
  int64_t indptr = 0;         // [S + 1]
  int64_t indices = 0;        // [indptr[S]] physical block ids
  int64_t last_page_len = 0;  // [S] tokens in the sequence's last block after this step, 1..bs
  int64_t sample_token = 0;   // [R] token index of each sampling sequence's last token
  std::vector<int32_t> packed;
  // Host-side only: batch.seqs index of page-table sequence s, and of sampling row r.
  std::vector<int32_t> seq_of;
  std::vector<int32_t> sample_seq;

  const int32_t* at(int64_t offset) const { return packed.data() + offset; }
};

// Supplies the token id at absolute position `pos` of `request` (prompt, then outputs); throws
// std::invalid_argument when the request does not carry it.
using TokenSource = int32_t (*)(const Request& request, int64_t pos);

// The token at absolute position pos of a request: its prompt, then its kept output tokens, then
// last_output_token (CpuBackend's rule). Throws std::invalid_argument naming the request when it
// carries no such token (no prompt_tokens, or no keep_output_tokens for older outputs).
int32_t request_token_at(const Request& request, int64_t pos);

// Fills `layout` from the batch. Throws std::invalid_argument (naming the request) for a block
// table too short for the step's tokens, a block id outside [0, num_blocks) or a token id outside
// [0, vocab_size).
void build_step_layout(const SchedulerOutput& batch, int32_t block_size, int64_t num_blocks,
                       int64_t vocab_size, TokenSource token_at, StepLayout& layout);

// Appends `pad` padding tokens (sequence -1: rotated but never written to the cache, position 0)
// so a captured graph of a larger batch can replay: used by decode graphs.
void pad_decode_layout(int32_t pad, StepLayout& layout);

}  // namespace llm
