#include "backends/cuda/cuda_engine_config.h"

#include <gtest/gtest.h>

#include "core/flag_values.h"

namespace llm {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

// Llama-3.2-1B's shape: 16 layers, 8 KV heads of 64.
ModelConfig llama_1b() {
  ModelConfig c;
  c.architecture = "llama";
  c.vocab_size = 128256;
  c.hidden_size = 2048;
  c.intermediate_size = 8192;
  c.num_hidden_layers = 16;
  c.num_attention_heads = 32;
  c.num_key_value_heads = 8;
  c.head_dim = 64;
  c.max_position_embeddings = 4096;
  c.tie_word_embeddings = true;
  return c;
}

TEST(CudaEngineConfig, BlockBytesCountKAndVOfEveryLayerInTheCacheDtype) {
  // 2 * 16 layers * 8 heads * 64 dims * 16 slots * 2 bytes = 524288 (vLLM's 32 KiB per token).
  EXPECT_EQ(cuda_kv_bytes_per_block(llama_1b(), 16, 2), 524288);
  EXPECT_EQ(cuda_kv_bytes_per_block(llama_1b(), 16, 1), 262144);  // fp8 halves it
  EXPECT_EQ(cuda_kv_dtype_bytes("auto"), 2);
  EXPECT_EQ(cuda_kv_dtype_bytes("fp8"), 1);
  EXPECT_EQ(cuda_kv_dtype_bytes("fp8_e4m3"), 1);
  EXPECT_THROW(cuda_kv_dtype_bytes("fp8_e5m2"), UsageError);
}

TEST(CudaEngineConfig, UtilisationShareMinusWeightsAndActivationsBecomesBlocks) {
  EngineArgs args;
  args.gpu_memory_utilization = 0.9;
  const CudaMemoryInfo h200{140 * kGiB, 139 * kGiB};
  const ModelConfig m = llama_1b();
  const int64_t weights = int64_t{2471} << 20;
  const CudaKvPlan plan = cuda_kv_plan(args, m, h200, weights, std::nullopt);
  const int64_t budget =
      static_cast<int64_t>(140 * kGiB * 0.9) - weights - cuda_activation_bytes(m, 4096, 256, 4096);
  EXPECT_EQ(plan.scheduler.num_gpu_blocks, budget / 524288);
  EXPECT_EQ(plan.cache_dtype, "auto");
  EXPECT_EQ(plan.kv_bytes, int64_t{plan.scheduler.num_gpu_blocks} * 524288);
}

TEST(CudaEngineConfig, Fp8DoublesTheBlocksOfTheSameBudget) {
  EngineArgs args;
  const ModelConfig m = llama_1b();
  const CudaKvPlan bf16 = cuda_kv_plan(args, m, {}, 0, 8 * kGiB);
  args.kv_cache_dtype = "fp8";
  const CudaKvPlan fp8 = cuda_kv_plan(args, m, {}, 0, 8 * kGiB);
  EXPECT_EQ(bf16.scheduler.num_gpu_blocks, 8 * kGiB / 524288);
  EXPECT_EQ(fp8.scheduler.num_gpu_blocks, 2 * bf16.scheduler.num_gpu_blocks);
  EXPECT_EQ(fp8.cache_dtype, "fp8_e4m3");
}

TEST(CudaEngineConfig, OverrideWinsOverEveryBudget) {
  EngineArgs args;
  args.num_gpu_blocks_override = 1000;
  const CudaKvPlan plan = cuda_kv_plan(args, llama_1b(), {1, 1}, 0, std::nullopt);
  EXPECT_EQ(plan.scheduler.num_gpu_blocks, 1000);
}

TEST(CudaEngineConfig, BadBudgetsNameTheirFlag) {
  const ModelConfig m = llama_1b();
  EngineArgs args;
  args.gpu_memory_utilization = 0.9;
  struct Row {
    CudaMemoryInfo memory;
    int64_t weights;
    std::optional<int64_t> kv_bytes;
    std::string flag;
  };
  const Row table[] = {
      {{80 * kGiB, 40 * kGiB}, 0, std::nullopt, "--gpu-memory-utilization"},       // others hold 40
      {{8 * kGiB, 8 * kGiB}, 8 * kGiB, std::nullopt, "--gpu-memory-utilization"},  // no room
      {{80 * kGiB, 80 * kGiB}, 0, int64_t{1} << 20, "--kv-cache-memory-bytes"},    // < 1 sequence
  };
  for (const Row& r : table) {
    try {
      cuda_kv_plan(args, m, r.memory, r.weights, r.kv_bytes);
      ADD_FAILURE() << "no error for " << r.flag;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(r.flag), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace llm
