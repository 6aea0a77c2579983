// The CUDA backend's entry points, declared here in plain C++ so that llmserve and llmsim link
// them whether or not this build has CUDA: backends/cuda/device defines them on the GPU
// (kernels/ and cuBLAS), backends/cuda/disabled (a -DLLM_ENABLE_CUDA=OFF build, or no nvcc)
// defines them to report that there is no CUDA.
// The backend runs a Llama-family decoder (ModelWeights, converted to bf16 at upload) over the
// engine's paged KV cache exactly as CpuBackend does (same batches, same sampling semantics: a
// recomputed request draws the same tokens), with fp32 accumulation.
// Thread-safety: probe_cuda_device may be called from any thread; a backend is driven by one
// engine thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "backends/cuda/cuda_engine_config.h"
#include "backends/model/model_weights.h"
#include "core/backend.h"

namespace llm {

// What probe_cuda_device found: usable is false when this build has no CUDA, there is no
// device, or the driver is older than the runtime; `problem` then says which, in one line.
struct CudaDeviceInfo {
  bool usable = false;
  std::string problem;
  std::string name;                // e.g. "NVIDIA H200"
  int32_t compute_capability = 0;  // major * 10 + minor
  CudaMemoryInfo memory;
};

CudaDeviceInfo probe_cuda_device();

struct CudaBackendOptions {
  int64_t num_blocks = 0;      // KV blocks, as the scheduler's KV cache manager has them
  int32_t block_size = 16;     // tokens per block
  int32_t kv_dtype_bytes = 2;  // 2: bf16, 1: fp8 e4m3 (scale 1 for K and V, vLLM's default)
  int64_t max_num_seqs = 256;  // decode graphs are captured up to this batch's bucket
  int64_t max_num_batched_tokens = 2048;  // the largest step the scratch buffers hold
  int64_t max_model_len = 2048;
  bool cuda_graphs = true;  // capture decode steps per batch-size bucket (graph_buckets.h)
  // Called during execute() with each sampling sequence's logits (vocab_size floats, before
  // temperature), for tests and tools; copies them to the host, so it slows steps down.
  std::function<void(const Request&, std::span<const float> logits)> on_logits;
};

// Throws std::runtime_error when there is no usable device (probe_cuda_device's problem) and
// std::invalid_argument for a model the kernels do not support (naming what).
std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const ModelWeights> weights,
                                           const CudaBackendOptions& options);

}  // namespace llm
