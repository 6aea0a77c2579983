// LlmServer::setup_cuda: llmserve --backend cuda. The device is probed before anything loads, so
// a machine with no GPU (or a driver older than the runtime) exits 2 with one line saying so; then
// the model and tokenizer load as for --backend cpu, and the KV cache is sized from the device's
// memory (backends/cuda/cuda_engine_config.h).
#include <algorithm>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/weight_packing.h"
#include "backends/model/model_weights.h"
#include "server/app/codec_setup.h"
#include "server/app/server_app.h"
#include "server/text/tokenizer_text_codec.h"

namespace llm {

std::function<Backend*()> LlmServer::setup_cuda() {
  const ServerOptions& o = context_.options;
  const CudaDeviceInfo device = probe_cuda_device();
  if (!device.usable) throw UsageError("--backend cuda: " + device.problem);
  if (o.data_parallel_size > 1) {
    throw UsageError("--data-parallel-size " + std::to_string(o.data_parallel_size) +
                     ": the cuda backend runs one engine on the one GPU it uses (device 0)");
  }
  std::shared_ptr<ModelWeights> weights = load_served_model();
  const std::optional<int64_t> kv_bytes = o.kv_cache_memory_bytes_given
                                              ? std::optional<int64_t>(o.kv_cache_memory_bytes)
                                              : std::nullopt;
  const CudaKvPlan plan =
      cuda_kv_plan(o.engine, weights->config, device.memory, cuda_weight_bytes(*weights), kv_bytes);
  EngineSetup& e = context_.setup;
  e.scheduler = plan.scheduler;
  e.cache = cache_config_info(e.scheduler, plan.cache_dtype, o.engine.gpu_memory_utilization,
                              o.engine.num_gpu_blocks_override);
  name_served_model(o, o.engine.model, e);
  e.deployment.model.vocab = weights->config.vocab_size;
  e.deployment.model.max_context = e.scheduler.max_model_len;
  use_model_tokenizer(weights->config);
  CudaBackendOptions cuda;
  cuda.num_blocks = e.scheduler.num_gpu_blocks;
  cuda.block_size = e.scheduler.block_size;
  cuda.kv_dtype_bytes = plan.kv_dtype_bytes;
  cuda.max_num_seqs = e.scheduler.max_num_seqs;
  cuda.max_num_batched_tokens = e.scheduler.max_num_batched_tokens;
  cuda.max_model_len = e.scheduler.max_model_len;
  std::shared_ptr<const ModelWeights> shared = std::move(weights);
  return [this, shared, cuda] {
    backends_.push_back(make_cuda_backend(shared, cuda));
    return backends_.back().get();
  };
}

}  // namespace llm
