// CpuBackend: the fp32 reference backend. Runs a Llama-family decoder (ModelWeights) on the CPU
// over the engine's paged KV cache: each step's batch exactly as the scheduler hands it (prefill
// chunks and decode tokens of many requests together, block tables from the block manager), and
// samples one token for every sequence whose step reaches its last token.
// Every kernel reduces in an order fixed by the model's shapes alone (matmul.h, attention.h), so a
// sequence's logits are bit-identical whatever else is in the batch, however its prefill was
// chunked and wherever its KV blocks lie. Requests must carry token ids (prompt_tokens, and
// keep_output_tokens for anything past the latest output token); execute() throws otherwise.
// Thread-safety: none; driven by one engine thread (it uses its own worker threads inside).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "backends/cpu/packed_model.h"
#include "backends/model/model_weights.h"
#include "core/backend.h"

namespace llm {

struct CpuBackendOptions {
  int64_t num_blocks = 0;   // KV blocks, as the scheduler's KV cache manager has them
  int32_t block_size = 16;  // tokens per block
  int threads = 0;          // worker threads for the GEMMs; 0: hardware concurrency
  // The model's matrices packed for the matmul (pack_model of the same weights), shared by the
  // backends of one model; null: the backend packs its own copy. When given, the weights'
  // row-major matrices are not read and may have been dropped (drop_packed_matrices).
  std::shared_ptr<const PackedModel> packed;
  // Called during execute() with each sampling sequence's logits (vocab_size floats, before
  // temperature), before its token is drawn; for tests and tools (golden logits, invariance).
  std::function<void(const Request&, std::span<const float> logits)> on_logits;
};

class CpuBackend final : public Backend {
 public:
  CpuBackend(std::shared_ptr<const ModelWeights> weights, const CpuBackendOptions& options);
  ~CpuBackend() override;

  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override;
  // The log-softmax of the raw logits (backends/cpu/logprobs.h) for the requests that ask.
  const StepLogprobs& logprobs() const override;
  int32_t eos_token_id() const override;
  void release(const Request& request) override;

  const ModelWeights& weights() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm
