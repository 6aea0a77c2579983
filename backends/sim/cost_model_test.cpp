// Tests of the roofline cost model: the spec's worked examples (checked against arithmetic done
// here from the spec's tables, not against the function's own output), tensor-parallel terms, KV
// capacity, and monotonicity properties.
// Thread-safety: single-threaded tests.
#include "backends/sim/cost_model.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "backends/sim/presets.h"

namespace llm {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

Deployment deploy(const std::string& gpu, const std::string& model, int64_t tp = 1,
                  int64_t kv_dtype_bytes = 2) {
  Deployment d;
  d.gpu = load_gpu_profile(gpu);
  d.model = load_model_shape(model);
  d.tensor_parallel_size = tp;
  d.kv_cache_dtype_bytes = kv_dtype_bytes;
  return d;
}

Nanos overhead_ns(const Deployment& d, int64_t sequences) {
  return d.gpu.step_overhead_ns + d.gpu.per_sequence_overhead_ns * sequences;
}

BatchCost decode_batch(int64_t sequences, int64_t context) {
  BatchCost b;
  for (int64_t i = 0; i < sequences; ++i) b.add(context, 1, true);
  return b;
}

// Llama-3.1-8B from the spec's model table, for hand arithmetic.
constexpr double k8BParams = 8030261248.0;
constexpr double k8BKvBytesPerToken = 131072.0;

TEST(CostModel, WorkedExampleDecodeBatch1Context1k) {
  const Deployment d = deploy("H200", "Llama-3.1-8B");
  const BatchCost b = decode_batch(1, 1024);

  // Weights once, 1024 cached tokens read, one new token written.
  const double bytes = k8BParams * 2 + (1024 + 1) * k8BKvBytesPerToken;
  EXPECT_DOUBLE_EQ(step_bytes(d, b), bytes);
  const double full_bandwidth_ms = bytes / 4.8e12 * 1e3;
  EXPECT_NEAR(full_bandwidth_ms, 3.37, 0.01);
  const double derated_ms = full_bandwidth_ms / 0.8;
  EXPECT_NEAR(derated_ms, 4.22, 0.01);

  // Decode is memory-bound, so the step is the memory time plus the overheads; rounding to whole
  // nanoseconds allows half a nanosecond.
  const double expected_ms = derated_ms + nanos_to_ms(overhead_ns(d, 1));
  EXPECT_NEAR(nanos_to_ms(step_time_ns(d, b)), expected_ms, 1e-6);
}

TEST(CostModel, WorkedExampleAtFullBandwidthNoOverhead) {
  Deployment d = deploy("H200", "Llama-3.1-8B");
  d.gpu.memory_efficiency = 1.0;
  d.gpu.step_overhead_ns = 0;
  d.gpu.per_sequence_overhead_ns = 0;
  EXPECT_NEAR(nanos_to_ms(step_time_ns(d, decode_batch(1, 1024))), 3.37, 0.01);
}

TEST(CostModel, PrefillFlopsMatchSpec) {
  const Deployment d = deploy("H100-SXM", "Llama-3.1-8B");
  BatchCost b;
  b.add(0, 2048, true);
  EXPECT_NEAR(step_flops(d, b) / 2.97e13, 1.0, 0.005);

  // Compute-bound: 30 ms at peak, 37.5 ms at 80% of peak (spec), plus overheads.
  const double peak_ms = step_flops(d, b) / 989e12 * 1e3;
  EXPECT_NEAR(peak_ms, 30.0, 0.3);
  EXPECT_GT(step_flops(d, b) / 989e12, step_bytes(d, b) / 3.35e12);
  const double expected_ms = peak_ms / 0.8 + nanos_to_ms(overhead_ns(d, 1));
  EXPECT_NEAR(nanos_to_ms(step_time_ns(d, b)), expected_ms, 1e-6);
  EXPECT_NEAR(peak_ms / 0.8, 37.5, 0.4);
}

TEST(CostModel, FlopTermsByHand) {
  const Deployment d = deploy("H200", "Llama-3.1-8B");
  BatchCost b;
  b.add(100, 10, false);
  // P = L * (H*(nh+2kv)*d + nh*d*H + 3*H*I) for Llama-3.1-8B.
  const double p = 32.0 * (4096.0 * 48 * 128 + 32.0 * 128 * 4096 + 3.0 * 4096 * 14336);
  const double pairs = 10.0 * (100 + 5);
  const double expected = 2 * p * 10 + 32.0 * 4 * 32 * 128 * pairs;  // nothing sampled
  EXPECT_DOUBLE_EQ(step_flops(d, b), expected);
  b.add(0, 1, true);
  EXPECT_NEAR(step_flops(d, b) - expected, 2 * p + 32.0 * 4 * 32 * 128 * 0.5 + 2.0 * 4096 * 128256,
              1.0);
}

TEST(CostModel, EmptyBatchTakesNoTime) {
  EXPECT_EQ(step_time_ns(deploy("H200", "Llama-3.1-8B"), BatchCost{}), 0);
}

TEST(CostModel, NonEmptyBatchTakesAtLeastOneNanosecond) {
  Deployment d = deploy("H200", "Llama-3.2-1B");
  d.gpu.bf16_flops = 1e30;
  d.gpu.hbm_bytes_per_s = 1e30;
  d.gpu.step_overhead_ns = 0;
  d.gpu.per_sequence_overhead_ns = 0;
  BatchCost b;
  b.add(0, 1, false);
  EXPECT_EQ(step_time_ns(d, b), 1);
}

TEST(CostModel, TensorParallelCommunication) {
  const BatchCost b = decode_batch(4, 512);
  EXPECT_EQ(step_comm_seconds(deploy("H200", "Llama-3.1-8B", 1), b), 0.0);

  const Deployment d = deploy("H200", "Llama-3.1-8B", 2);
  // Two all-reduces per layer, each 2*(tp-1)/tp * N*H*2 bytes over the link plus the latency.
  const double one = 2.0 * 1 / 2 * 4 * 4096 * 2 / 450e9 + d.gpu.allreduce_latency_ns * 1e-9;
  EXPECT_NEAR(step_comm_seconds(d, b), 2 * 32 * one, 1e-12);
  // Per-rank KV bytes use kv_heads / tp heads; weights split evenly.
  const double bytes = k8BParams * 2 / 2 + (4 * 512 + 4) * k8BKvBytesPerToken / 2;
  EXPECT_DOUBLE_EQ(step_bytes(d, b), bytes);
}

TEST(CostModel, KvHeadsPerGpuAreReplicatedPastKvHeadCount) {
  EXPECT_EQ(kv_heads_per_gpu(deploy("H200", "Llama-3.1-8B", 1)), 8);
  EXPECT_EQ(kv_heads_per_gpu(deploy("H200", "Llama-3.1-8B", 2)), 4);
  EXPECT_EQ(kv_heads_per_gpu(deploy("H200", "Qwen2.5-7B", 8)), 1);
  EXPECT_EQ(kv_heads_per_gpu(deploy("H200", "Llama-3.1-8B", 16)), 1);
}

TEST(CostModel, KvBlockBytes) {
  // 2 (K,V) * 16 tokens * 8 heads * 128 dims * 2 bytes * 32 layers = 2 MiB.
  EXPECT_EQ(kv_block_bytes_per_gpu(deploy("H200", "Llama-3.1-8B"), 16), 2 * 1024 * 1024);
  EXPECT_EQ(kv_block_bytes_per_gpu(deploy("H200", "Llama-3.1-8B", 2), 16), 1024 * 1024);
  EXPECT_EQ(kv_block_bytes_per_gpu(deploy("H200", "Llama-3.1-8B", 1, 1), 16), 1024 * 1024);
  EXPECT_EQ(kv_block_bytes_per_gpu(deploy("H200", "Llama-3.1-8B", 16), 16), 256 * 1024);
  const Deployment d = deploy("H200", "Llama-3.1-70B");
  EXPECT_EQ(kv_block_bytes_per_gpu(d, 16), 16 * kv_bytes_per_token(d.model, 2));
}

TEST(CostModel, H200Llama8BKvCapacityInVllmRange) {
  const Deployment d = deploy("H200", "Llama-3.1-8B");
  const int64_t blocks = num_gpu_blocks(d, 0.92, 16, 8192);
  const double kv_gib = static_cast<double>(blocks) * 2 * kMiB / kGiB;
  RecordProperty("blocks", std::to_string(blocks));
  EXPECT_GE(kv_gib, 100.0);
  EXPECT_LE(kv_gib, 115.0);
  // The block count is the KV budget divided by the block size, rounded down.
  const double budget = kv_cache_bytes_per_gpu(d, 0.92, 8192);
  EXPECT_EQ(blocks, static_cast<int64_t>(std::floor(budget / (2 * kMiB))));
  // The reserve is a few GiB: more than nothing, far less than the weights.
  const double reserve = non_kv_reserve_bytes(d, 8192);
  EXPECT_GT(reserve, 1.0 * kGiB);
  EXPECT_LT(reserve, 5.0 * kGiB);
  EXPECT_NEAR(budget + reserve + k8BParams * 2, d.gpu.memory_bytes * 0.92, 1.0);
}

TEST(CostModel, Fp8KvDoublesTheBlockCount) {
  for (const std::string& model : model_preset_names()) {
    const int64_t bf16 = num_gpu_blocks(deploy("H200", model, 1, 2), 0.92, 16, 8192);
    const int64_t fp8 = num_gpu_blocks(deploy("H200", model, 1, 1), 0.92, 16, 8192);
    if (bf16 <= 0) continue;
    EXPECT_GE(fp8, 2 * bf16) << model;
    EXPECT_LE(fp8, 2 * bf16 + 1) << model;
  }
}

TEST(CostModel, Llama70BDoesNotFitOnOneA100) {
  EXPECT_LE(num_gpu_blocks(deploy("A100-80GB", "Llama-3.1-70B"), 0.92, 16, 8192), 0);
  EXPECT_LE(num_gpu_blocks(deploy("H100-SXM", "Llama-3.1-70B"), 0.92, 16, 8192), 0);
  EXPECT_GT(num_gpu_blocks(deploy("H100-SXM", "Llama-3.1-70B", 4), 0.92, 16, 8192), 0);
  EXPECT_GT(num_gpu_blocks(deploy("H200", "Llama-3.1-70B", 2), 0.92, 16, 8192), 0);
}

TEST(CostModel, Tp8BeatsTp4For70BBigBatch) {
  const BatchCost decode = decode_batch(256, 1024);
  BatchCost prefill;
  prefill.add(0, 8192, true);
  for (const char* gpu : {"H100-SXM", "H200", "A100-80GB"}) {
    const Deployment tp4 = deploy(gpu, "Llama-3.1-70B", 4);
    const Deployment tp8 = deploy(gpu, "Llama-3.1-70B", 8);
    EXPECT_LT(step_time_ns(tp8, decode), step_time_ns(tp4, decode)) << gpu;
    EXPECT_LT(step_time_ns(tp8, prefill), step_time_ns(tp4, prefill)) << gpu;
  }
}

TEST(CostModel, InvalidInputsThrow) {
  EXPECT_THROW(step_time_ns(deploy("H200", "Llama-3.1-8B", 0), decode_batch(1, 1)),
               std::invalid_argument);
  EXPECT_THROW(num_gpu_blocks(deploy("H200", "Llama-3.1-8B"), 0.9, 0, 8192), std::invalid_argument);
  Deployment no_link = deploy("H200", "Llama-3.1-8B", 2);
  no_link.gpu.link_bytes_per_s = 0;
  EXPECT_THROW(step_time_ns(no_link, decode_batch(1, 1)), std::invalid_argument);
  BatchCost negative;
  negative.num_sequences = 1;
  negative.new_tokens = -1;
  EXPECT_THROW(step_time_ns(deploy("H200", "Llama-3.1-8B"), negative), std::invalid_argument);
}

TEST(CostModel, Deterministic) {
  const Deployment d = deploy("B200", "Qwen3-8B", 2);
  BatchCost b;
  for (int64_t i = 0; i < 100; ++i) b.add(i * 37, 1 + i % 5, i % 3 == 0);
  const Nanos first = step_time_ns(d, b);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(step_time_ns(d, b), first);
}

// --- properties -------------------------------------------------------------------------------

struct Seq {
  int64_t cached;
  int64_t fresh;
};

Deployment any_deployment() {
  const std::string gpu = *rc::gen::elementOf(gpu_preset_names());
  const std::string model = *rc::gen::elementOf(model_preset_names());
  const int64_t tp = *rc::gen::element<int64_t>(1, 2, 4, 8);
  const int64_t kv_bytes = *rc::gen::element<int64_t>(1, 2);
  return deploy(gpu, model, tp, kv_bytes);
}

std::vector<Seq> any_batch() {
  const auto size = *rc::gen::inRange<size_t>(1, 65);
  std::vector<Seq> seqs;
  for (size_t i = 0; i < size; ++i) {
    seqs.push_back({*rc::gen::inRange<int64_t>(0, 131073), *rc::gen::inRange<int64_t>(1, 8193)});
  }
  return seqs;
}

BatchCost cost_of(const std::vector<Seq>& seqs) {
  BatchCost b;
  for (const Seq& s : seqs) b.add(s.cached, s.fresh, true);
  return b;
}

RC_GTEST_PROP(CostModelProperty, MoreNewTokensNeverFaster, ()) {
  const Deployment d = any_deployment();
  std::vector<Seq> seqs = any_batch();
  const Nanos before = step_time_ns(d, cost_of(seqs));
  const size_t i = *rc::gen::inRange<size_t>(0, seqs.size());
  seqs[i].fresh += *rc::gen::inRange<int64_t>(1, 4097);
  RC_ASSERT(step_time_ns(d, cost_of(seqs)) >= before);
}

RC_GTEST_PROP(CostModelProperty, MoreContextNeverFaster, ()) {
  const Deployment d = any_deployment();
  std::vector<Seq> seqs = any_batch();
  const Nanos before = step_time_ns(d, cost_of(seqs));
  const size_t i = *rc::gen::inRange<size_t>(0, seqs.size());
  seqs[i].cached += *rc::gen::inRange<int64_t>(1, 65537);
  RC_ASSERT(step_time_ns(d, cost_of(seqs)) >= before);
}

RC_GTEST_PROP(CostModelProperty, AnotherSequenceNeverFaster, ()) {
  const Deployment d = any_deployment();
  std::vector<Seq> seqs = any_batch();
  const Nanos before = step_time_ns(d, cost_of(seqs));
  seqs.push_back({*rc::gen::inRange<int64_t>(0, 4097), *rc::gen::inRange<int64_t>(1, 513)});
  const Nanos after = step_time_ns(d, cost_of(seqs));
  RC_ASSERT(after >= before + d.gpu.per_sequence_overhead_ns);
}

RC_GTEST_PROP(CostModelProperty, NonEmptyBatchIsPositive, ()) {
  const Deployment d = any_deployment();
  RC_ASSERT(step_time_ns(d, cost_of(any_batch())) >= 1);
}

RC_GTEST_PROP(CostModelProperty, MoreUtilizationNeverFewerBlocks, ()) {
  const Deployment d = any_deployment();
  const double low = *rc::gen::inRange(50, 96) / 100.0;
  const double high = low + *rc::gen::inRange(0, 5) / 100.0;
  const int64_t tokens = *rc::gen::element<int64_t>(2048, 8192, 16384);
  RC_ASSERT(num_gpu_blocks(d, high, 16, tokens) >= num_gpu_blocks(d, low, 16, tokens));
}

RC_GTEST_PROP(CostModelProperty, BiggerProfilingStepNeverMoreBlocks, ()) {
  const Deployment d = any_deployment();
  const int64_t small = *rc::gen::inRange<int64_t>(256, 16385);
  const int64_t big = small + *rc::gen::inRange<int64_t>(0, 16385);
  RC_ASSERT(num_gpu_blocks(d, 0.9, 16, big) <= num_gpu_blocks(d, 0.9, 16, small));
}

}  // namespace
}  // namespace llm
