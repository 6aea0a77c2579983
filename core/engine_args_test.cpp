// The engine-argument flags on their own, in core (llm_core alone: no simulated GPU linked): what
// each flag sets, the switch pairs given twice, and the values refused naming the flag.
#include "core/engine_args.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llm {
namespace {

EngineArgs parse_engine_flags(const std::vector<std::string>& args) {
  EngineFlagParser engine;
  FlagSet flags("test");
  engine.add_to(flags);
  flags.parse(args);
  return engine.args();
}

std::string engine_flags_error(const std::vector<std::string>& args) {
  try {
    parse_engine_flags(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(EngineArgs, DefaultsLeaveTheDeviceDependentOnesUnset) {
  const EngineArgs a = parse_engine_flags({});
  EXPECT_EQ(a.gpu, "H200");
  EXPECT_EQ(a.model, "Llama-3.1-8B");
  EXPECT_FALSE(a.gpu_or_model_given);
  EXPECT_FALSE(a.max_num_seqs.has_value());
  EXPECT_FALSE(a.max_num_batched_tokens.has_value());
  EXPECT_FALSE(a.async_scheduling.has_value());
  EXPECT_TRUE(a.enable_prefix_caching);
  EXPECT_TRUE(a.enable_chunked_prefill);
}

TEST(EngineArgs, EachFlagSetsItsField) {
  const EngineArgs a = parse_engine_flags({"--max-num-seqs",
                                           "7",
                                           "--max-num-batched-tokens=512",
                                           "--block-size",
                                           "32",
                                           "--gpu-memory-utilization",
                                           "0.5",
                                           "--no-enable-prefix-caching",
                                           "--no-async-scheduling",
                                           "--no-enable-chunked-prefill",
                                           "--kv-cache-dtype",
                                           "fp8",
                                           "--max-model-len",
                                           "4096",
                                           "--num-gpu-blocks-override",
                                           "100",
                                           "--long-prefill-token-threshold",
                                           "64",
                                           "--scheduling-policy",
                                           "priority",
                                           "--tensor-parallel-size",
                                           "2",
                                           "--model",
                                           "m.json"});
  EXPECT_EQ(a.max_num_seqs, 7);
  EXPECT_EQ(a.max_num_batched_tokens, 512);
  EXPECT_EQ(a.block_size, 32);
  EXPECT_DOUBLE_EQ(a.gpu_memory_utilization, 0.5);
  EXPECT_FALSE(a.enable_prefix_caching);
  EXPECT_EQ(a.async_scheduling, false);
  EXPECT_FALSE(a.enable_chunked_prefill);
  EXPECT_EQ(a.kv_cache_dtype, "fp8");
  EXPECT_EQ(a.max_model_len, 4096);
  EXPECT_EQ(a.num_gpu_blocks_override, 100);
  EXPECT_EQ(a.long_prefill_token_threshold, 64);
  EXPECT_EQ(a.policy, SchedulingPolicy::kPriority);
  EXPECT_EQ(a.tensor_parallel_size, 2);
  EXPECT_EQ(a.model, "m.json");
  EXPECT_TRUE(a.gpu_or_model_given);
}

TEST(EngineArgs, TheAdmissionKnobsDefaultAsVllmsAndParse) {
  const EngineArgs defaults = parse_engine_flags({});
  EXPECT_FALSE(defaults.max_num_active_seqs.has_value());  // vLLM's None: max_num_seqs
  EXPECT_TRUE(defaults.scheduler_reserve_full_isl);        // vLLM's default True
  const EngineArgs a =
      parse_engine_flags({"--max-num-active-seqs", "3", "--no-scheduler-reserve-full-isl"});
  EXPECT_EQ(a.max_num_active_seqs, 3);
  EXPECT_FALSE(a.scheduler_reserve_full_isl);
  EXPECT_TRUE(parse_engine_flags({"--scheduler-reserve-full-isl"}).scheduler_reserve_full_isl);
  EXPECT_EQ(engine_flags_error({"--max-num-active-seqs", "0"}),
            "--max-num-active-seqs: must be at least 1, got 0");
  EXPECT_EQ(engine_flags_error({"--scheduler-reserve-full-isl", "--no-scheduler-reserve-full-isl"}),
            "contradictory flags: --scheduler-reserve-full-isl/--no-scheduler-reserve-full-isl "
            "given twice or both (at --no-scheduler-reserve-full-isl)");
}

TEST(EngineArgs, KvCacheMetricsFlagsAsVllms) {
  const EngineArgs defaults = parse_engine_flags({});
  EXPECT_FALSE(defaults.kv_cache_metrics);
  EXPECT_DOUBLE_EQ(defaults.kv_cache_metrics_sample, 0.01);
  const EngineArgs a = parse_engine_flags({"--kv-cache-metrics", "--kv-cache-metrics-sample", "1"});
  EXPECT_TRUE(a.kv_cache_metrics);
  EXPECT_DOUBLE_EQ(a.kv_cache_metrics_sample, 1.0);
  EXPECT_EQ(engine_flags_error({"--kv-cache-metrics-sample", "1.5"}),
            "--kv-cache-metrics-sample: must be in [0, 1]");
}

TEST(EngineArgs, BadValuesNameTheFlag) {
  EXPECT_EQ(engine_flags_error({"--gpu-memory-utilization", "1.5"}),
            "--gpu-memory-utilization: must be in (0, 1]");
  EXPECT_EQ(engine_flags_error({"--max-num-seqs", "0"}),
            "--max-num-seqs: must be at least 1, got 0");
  EXPECT_EQ(engine_flags_error({"--enable-prefix-caching", "--no-enable-prefix-caching"}),
            "contradictory flags: --enable-prefix-caching/--no-enable-prefix-caching given twice "
            "or both (at --no-enable-prefix-caching)");
  EXPECT_EQ(engine_flags_error({"--scheduling-policy", "lifo"}),
            "--scheduling-policy: expected fcfs or priority, got 'lifo'");
}

}  // namespace
}  // namespace llm
