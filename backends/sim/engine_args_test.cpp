// Tests of resolve_engine_args on the GPU-preset side of the engine model: a Hugging Face config
// as --model with the interface issue 32 checks (--gpu, --model, TP, limits, utilization,
// override), --dtype/--quantization, and the refusals that name the flag.
// Thread-safety: single-threaded tests.
#include "backends/sim/resolve_engine_args.h"

#include <gtest/gtest.h>

#include <string>

#include "backends/sim/cost_model.h"
#include "core/flag_set.h"

namespace llm {
namespace {

const std::string kHfConfigFolders = LLM_SOURCE_DIR "/backends/sim/testdata/hf-configs/";

std::string usage_error(const EngineArgs& a) {
  try {
    resolve_engine_args(a);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

EngineArgs check_interface() {
  EngineArgs a;
  a.gpu = "H100-SXM";
  a.model = kHfConfigFolders + "mistral-nemo-instruct-2407";
  a.gpu_or_model_given = true;
  a.tensor_parallel_size = 2;
  a.max_num_seqs = 128;
  a.max_num_batched_tokens = 1024;
  a.max_model_len = 4096;
  a.gpu_memory_utilization = 0.9;
  return a;
}

TEST(EngineArgs, HfConfigWithTheRunsEngineSettings) {
  const EngineArgs a = check_interface();
  const ResolvedEngine r = resolve_engine_args(a);
  EXPECT_EQ(r.deployment.model.hidden, 5120);
  EXPECT_EQ(r.deployment.tensor_parallel_size, 2);
  EXPECT_EQ(r.scheduler.max_num_seqs, 128);
  EXPECT_EQ(r.scheduler.max_num_batched_tokens, 1024);
  EXPECT_EQ(r.scheduler.max_model_len, 4096);
  EXPECT_TRUE(r.scheduler.async_scheduling);
  // The KV capacity of that deployment: vLLM logged 48,009 blocks (BLIS run 62); the model
  // gives it within 1%.
  EXPECT_NEAR(r.scheduler.num_gpu_blocks / 48009.0, 1.0, 0.01);
  EngineArgs o = a;
  o.num_gpu_blocks_override = 48009;
  EXPECT_EQ(resolve_engine_args(o).scheduler.num_gpu_blocks, 48009);
}

TEST(EngineArgs, DtypeAndQuantizationChangeTheWeightsAndTheCapacity) {
  EngineArgs a = check_interface();
  const ResolvedEngine bf16 = resolve_engine_args(a);
  a.quantization = "fp8";
  const ResolvedEngine fp8 = resolve_engine_args(a);
  EXPECT_EQ(mlp_weight_bytes(fp8.deployment.model), 1);
  EXPECT_GT(fp8.scheduler.num_gpu_blocks, bf16.scheduler.num_gpu_blocks);
  BatchCost decode;
  for (int i = 0; i < 8; ++i) decode.add(500, 1, true);
  EXPECT_LT(step_time_ns(fp8.deployment, decode), step_time_ns(bf16.deployment, decode));
  a.quantization = "awq";
  EXPECT_EQ(usage_error(a).rfind("--quantization: ", 0), 0u) << usage_error(a);
  a.quantization.clear();
  a.dtype = "int4";
  EXPECT_EQ(usage_error(a).rfind("--dtype: ", 0), 0u) << usage_error(a);
}

TEST(EngineArgs, RefusalsNameTheFlag) {
  EngineArgs a = check_interface();
  a.tensor_parallel_size = 3;  // does not divide 32 heads
  EXPECT_EQ(usage_error(a).rfind("--tensor-parallel-size 3", 0), 0u) << usage_error(a);
  a = check_interface();
  a.num_gpu_blocks_override = 10'000'000;  // 13 TB of KV cache
  EXPECT_EQ(usage_error(a).rfind("--num-gpu-blocks-override 10000000", 0), 0u) << usage_error(a);
  a = check_interface();
  a.model = kHfConfigFolders + "deepseek-v2-lite";
  EXPECT_EQ(usage_error(a).rfind("--model: ", 0), 0u) << usage_error(a);
  EXPECT_NE(usage_error(a).find("architectures"), std::string::npos) << usage_error(a);
  a = check_interface();
  a.gpu = "H300";
  EXPECT_EQ(usage_error(a).rfind("--gpu: unknown GPU preset 'H300'", 0), 0u) << usage_error(a);
}

TEST(EngineArgs, EveryPresetResolvesWithItsDefaults) {
  EngineArgs a;
  a.model = "Llama-3.1-8B";
  a.max_model_len = 8192;  // the 24 GB card holds 2,477 blocks, not the 131,072-token context
  for (const char* gpu :
       {"H100-SXM", "H200", "A100-80GB", "A100-40GB", "L40S", "RTX-PRO-6000", "RTX-4090"}) {
    a.gpu = gpu;
    const ResolvedEngine r = resolve_engine_args(a);
    EXPECT_GT(r.scheduler.num_gpu_blocks, 100) << gpu;
    // vLLM's defaults: 1024 sequences and 8192 tokens on 70 GiB+ cards other than the A100.
    const bool large = std::string(gpu) == "H100-SXM" || std::string(gpu) == "H200" ||
                       std::string(gpu) == "RTX-PRO-6000";
    EXPECT_EQ(r.scheduler.max_num_seqs, large ? 1024 : 256) << gpu;
  }
}

}  // namespace
}  // namespace llm
