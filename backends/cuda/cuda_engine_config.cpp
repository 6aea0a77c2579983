#include "backends/cuda/cuda_engine_config.h"

#include <algorithm>
#include <cmath>

#include "backends/cpu/cpu_engine_config.h"
#include "core/ceil_div.h"
#include "core/flag_values.h"

namespace llm {
namespace {

int64_t head_dim_of(const ModelConfig& m) {
  return m.head_dim > 0 ? m.head_dim : m.hidden_size / std::max<int64_t>(m.num_attention_heads, 1);
}

std::string gib(int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1 << 30));
  return buf;
}

}  // namespace

int32_t cuda_kv_dtype_bytes(const std::string& dtype) {
  if (dtype.empty() || dtype == "auto" || dtype == "bfloat16") return 2;
  if (dtype == "fp8" || dtype == "fp8_e4m3") return 1;
  throw UsageError("--kv-cache-dtype " + dtype +
                   ": the cuda backend stores auto (bf16), fp8 or fp8_e4m3");
}

int64_t cuda_kv_bytes_per_block(const ModelConfig& m, int32_t block_size, int32_t dtype_bytes) {
  return 2 * m.num_hidden_layers * m.num_key_value_heads * head_dim_of(m) * block_size *
         dtype_bytes;
}

int64_t cuda_activation_bytes(const ModelConfig& m, int64_t tokens, int64_t seqs,
                              int64_t max_model_len) {
  const int64_t hd = head_dim_of(m);
  const int64_t qkv = (m.num_attention_heads + 2 * m.num_key_value_heads) * hd;
  // Per token: fp32 residual and delta, bf16 normed input, QKV, attention output, gate+up, act.
  const int64_t per_token =
      4 * 2 * m.hidden_size +
      2 * (m.hidden_size + qkv + m.num_attention_heads * hd + 3 * m.intermediate_size);
  // Per sampling row: fp32 logits and the sampler's double workspace.
  const int64_t per_row = 12 * m.vocab_size;
  // Split-K attention workspace: 512-token splits over the longest context.
  const int64_t splits = (max_model_len + 511) / 512;
  const int64_t attention = 4 * tokens * m.num_attention_heads * splits * (hd + 2);
  const int64_t cublas = int64_t{32} << 20;
  return tokens * per_token + std::max<int64_t>(seqs, 1) * per_row + attention + cublas;
}

CudaKvPlan cuda_kv_plan(const EngineArgs& args, const ModelConfig& model,
                        const CudaMemoryInfo& memory, int64_t weight_bytes,
                        std::optional<int64_t> kv_cache_memory_bytes) {
  CudaKvPlan plan;
  plan.kv_dtype_bytes = cuda_kv_dtype_bytes(args.kv_cache_dtype.value_or("auto"));
  plan.cache_dtype = plan.kv_dtype_bytes == 1 ? "fp8_e4m3" : "auto";
  const int32_t block_size = args.block_size.value_or(16);
  plan.bytes_per_block = cuda_kv_bytes_per_block(model, block_size, plan.kv_dtype_bytes);
  EngineArgs sized = args;
  if (!args.num_gpu_blocks_override) {
    int64_t budget = 0;
    const char* flag = "--kv-cache-memory-bytes";
    if (kv_cache_memory_bytes) {
      budget = *kv_cache_memory_bytes;
    } else {
      flag = "--gpu-memory-utilization";
      const double util = args.gpu_memory_utilization;
      const auto requested = static_cast<int64_t>(std::floor(memory.total_bytes * util));
      if (memory.free_bytes < requested) {
        throw UsageError("--gpu-memory-utilization " + std::to_string(util) + ": the device has " +
                         gib(memory.free_bytes) + " free of " + gib(memory.total_bytes) +
                         ", less than the " + gib(requested) + " asked for");
      }
      const int64_t max_len = args.max_model_len.value_or(model_context_length(model));
      const int64_t tokens = args.max_num_batched_tokens.value_or(std::max<int64_t>(2048, max_len));
      budget = requested - weight_bytes -
               cuda_activation_bytes(model, tokens, args.max_num_seqs.value_or(256), max_len);
      if (budget <= 0) {
        throw UsageError(std::string(flag) + " " + std::to_string(util) +
                         ": no room for a KV cache (weights " + gib(weight_bytes) + " of " +
                         gib(requested) + ")");
      }
    }
    sized.num_gpu_blocks_override = budget / std::max<int64_t>(plan.bytes_per_block, 1);
    const int64_t blocks_per_seq =
        ceil_div(args.max_model_len.value_or(model_context_length(model)), block_size);
    if (*sized.num_gpu_blocks_override - 1 < blocks_per_seq) {
      throw UsageError(std::string(flag) + ": the KV budget " + gib(budget) + " holds " +
                       std::to_string(*sized.num_gpu_blocks_override) + " blocks of " +
                       std::to_string(plan.bytes_per_block) + " bytes, fewer than one " +
                       std::to_string(blocks_per_seq) +
                       "-block full-length sequence (lower --max-model-len)");
    }
  }
  plan.scheduler = cpu_scheduler_config(sized, model, 0);
  plan.kv_bytes = plan.scheduler.num_gpu_blocks * plan.bytes_per_block;
  return plan;
}

}  // namespace llm
