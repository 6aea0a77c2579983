#include "backends/sim/engine_args.h"

#include <climits>
#include <cstdio>
#include <stdexcept>

#include "backends/sim/presets.h"

namespace llm {
namespace {

// Runs fn; an exception from it becomes an invalid_argument prefixed with the flag.
template <typename Fn>
auto for_flag(const char* flag, Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string(flag) + ": " + e.what());
  }
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

ResolvedEngine resolve_engine_args(const EngineArgs& a) {
  ResolvedEngine r;
  Deployment& d = r.deployment;
  d.gpu = for_flag("--gpu", [&] { return load_gpu_profile(a.gpu); });
  d.model = for_flag("--model", [&] { return load_model_shape(a.model); });
  d.kv_cache_dtype_bytes =
      for_flag("--kv-cache-dtype", [&] { return kv_cache_dtype_bytes(a.kv_cache_dtype); });
  d.tensor_parallel_size = a.tensor_parallel_size;
  if (a.tensor_parallel_size < 1 || d.model.heads % a.tensor_parallel_size != 0) {
    throw std::invalid_argument("--tensor-parallel-size " + std::to_string(a.tensor_parallel_size) +
                                " does not divide the model's " + std::to_string(d.model.heads) +
                                " attention heads");
  }
  if (a.gpu_memory_utilization <= 0 || a.gpu_memory_utilization > 1) {
    throw std::invalid_argument("--gpu-memory-utilization: must be in (0, 1]");
  }

  // vLLM's defaults for the OpenAI server: larger on 70 GiB+ GPUs other than the A100.
  const bool large_gpu =
      d.gpu.memory_bytes >= 70.0 * (1ull << 30) && d.gpu.name.find("A100") == std::string::npos;
  SchedulerConfig& s = r.scheduler;
  s.max_num_seqs = a.max_num_seqs.value_or(large_gpu ? 1024 : 256);
  s.max_num_batched_tokens = a.max_num_batched_tokens.value_or(large_gpu ? 8192 : 2048);
  s.block_size = a.block_size;
  s.max_model_len = a.max_model_len.value_or(d.model.max_context);
  if (a.max_model_len && d.model.max_context > 0 && *a.max_model_len > d.model.max_context) {
    throw std::invalid_argument("--max-model-len " + std::to_string(*a.max_model_len) +
                                " exceeds the model's context length " +
                                std::to_string(d.model.max_context));
  }
  s.long_prefill_token_threshold = a.long_prefill_token_threshold;
  s.enable_chunked_prefill = a.enable_chunked_prefill;
  s.enable_prefix_caching = a.enable_prefix_caching;
  s.policy = a.policy;
  int64_t blocks = a.num_gpu_blocks_override.value_or(
      num_gpu_blocks(d, a.gpu_memory_utilization, a.block_size, s.max_num_batched_tokens));
  if (blocks < 2) {
    throw std::invalid_argument(
        "--gpu-memory-utilization: the model's weights leave no room for a KV cache on --gpu " +
        a.gpu + " at " + number_text(a.gpu_memory_utilization) +
        "; raise --tensor-parallel-size or pick a larger GPU");
  }
  s.num_gpu_blocks = static_cast<int32_t>(blocks > INT32_MAX ? INT32_MAX : blocks);
  if (std::string problem = validate(s); !problem.empty()) throw std::invalid_argument(problem);
  return r;
}

}  // namespace llm
