// Tests of the cost model: the GPU step model's terms checked against arithmetic done here from
// the formulas (not against the functions' own output), mixed steps as separate kernels, MoE
// experts touched, tensor-parallel all-reduces, FP8 weights, KV capacity, and monotonicity
// properties over every preset.
// Thread-safety: single-threaded tests.
#include "backends/sim/cost_model.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/sim/gpu_step_model.h"
#include "backends/sim/presets.h"

namespace llm {
namespace {

Deployment deploy(const std::string& gpu, const std::string& model, int64_t tp = 1,
                  int64_t kv_dtype_bytes = 2) {
  Deployment d;
  d.gpu = load_gpu_profile(gpu);
  d.model = load_model_shape(model);
  d.tensor_parallel_size = tp;
  d.kv_cache_dtype_bytes = kv_dtype_bytes;
  return d;
}

BatchCost decode_batch(int64_t sequences, int64_t context) {
  BatchCost b;
  for (int64_t i = 0; i < sequences; ++i) b.add(context, 1, true);
  return b;
}

// Coefficients whose terms are easy to add up by hand: only streaming, no kernel costs, a sharp
// maximum.
GpuStepCoefficients streaming_only() {
  GpuStepCoefficients c;
  c.weight_bytes_per_s = 1e12;
  c.kv_bytes_per_s = 2e12;
  c.prefill_kv_bytes_per_s = 2e12;
  c.mixed_kv_bytes_per_s = 1e12;
  c.gemm_flops_bf16 = 1e18;  // compute never binds
  c.attention_flops = 1e18;
  c.gemm_sharpness = 64;
  c.elementwise_speed = 1e9;  // free
  return c;
}

TEST(GpuStepModel, DecodeStepByHand) {
  const ModelShape m = *find_model_preset("Llama-3.1-8B");
  const GpuStepCoefficients c = streaming_only();
  const BatchCost b = decode_batch(4, 1000);
  const GpuStepTerms t = gpu_step_terms(c, {&m, 1, 2}, b);
  // Every layer matrix once (32 x (qkv + o + gate/up + down)) plus the LM head (4 rows): 2 bytes
  // each at 1 TB/s; at 4 tokens with compute 1e6 times faster the maximum is the memory time.
  const double layer_params = 4096.0 * 48 * 128 + 32.0 * 128 * 4096 + 3.0 * 4096 * 14336;
  const double lm_head = 128256.0 * 4096;
  const double bytes = 2.0 * (32 * layer_params + lm_head);
  EXPECT_NEAR(t.gemm_ns, bytes / 1e12 * 1e9, 1e-6 * bytes / 1e3);
  // Decode attention reads (context + 1) tokens of 8 KV heads x 128 x 2 (K, V) x 2 bytes per
  // layer per sequence, at 2 TB/s.
  const double kv = 4.0 * 1001 * 8 * 128 * 2 * 2 * 32;
  EXPECT_NEAR(t.attention_ns, kv / 2e12 * 1e9, 1e-6);
  EXPECT_EQ(t.allreduce_ns, 0.0);
  EXPECT_EQ(t.fixed_ns, 0.0);
}

TEST(GpuStepModel, FixedCostsAndKernels) {
  const ModelShape m = *find_model_preset("Llama-3.2-1B");
  GpuStepCoefficients c = streaming_only();
  c.step_ns = 100000;
  c.per_sequence_ns = 1000;
  c.per_sample_ns = 500;
  c.per_layer_ns = 20000;
  c.gemm_kernel_ns = 3000;
  c.decode_kernel_ns = 7000;
  c.decode_per_sequence_ns = 100;
  const BatchCost b = decode_batch(3, 10);
  const GpuStepTerms base = gpu_step_terms(streaming_only(), {&m, 1, 2}, b);
  const GpuStepTerms t = gpu_step_terms(c, {&m, 1, 2}, b);
  EXPECT_DOUBLE_EQ(t.fixed_ns, 100000 + 3 * 1000 + 3 * 500 + 16 * 20000);
  // Four GEMM kernels per layer and the LM head: 65 kernels of 3 us more.
  EXPECT_NEAR(t.gemm_ns - base.gemm_ns, 65 * 3000.0, 1e-6);
  EXPECT_NEAR(t.attention_ns - base.attention_ns, 16 * (7000.0 + 3 * 100), 1e-6);
}

TEST(GpuStepModel, GemmEfficiencyGrowsWithTokens) {
  GpuStepCoefficients c = streaming_only();
  c.gemm_flops_bf16 = 8e14;
  c.gemm_sharpness = 4;
  const double params = 2e8;  // 400 MB of bf16 weights: 400 us at 1 TB/s
  const double at1 = gemm_ns(c, params, 2, 1);
  EXPECT_NEAR(at1, 400e3, 1.0);
  // Compute equals memory at 2 * 2e8 * n / 8e14 = 4e-4 s: n = 800 tokens, where the smooth
  // maximum of two equal times is 2^(1/4) of either.
  EXPECT_NEAR(gemm_ns(c, params, 2, 800) / 400e3, std::pow(2.0, 0.25), 1e-9);
  // Far above, compute-bound: time proportional to tokens.
  EXPECT_NEAR(gemm_ns(c, params, 2, 80000) / gemm_ns(c, params, 2, 40000), 2.0, 1e-3);
  // The achieved FLOP rate rises with the tokens and never exceeds the peak.
  double last = 0;
  for (double n : {1.0, 16.0, 256.0, 1024.0, 8192.0}) {
    const double rate = 2 * params * n / (gemm_ns(c, params, 2, n) * 1e-9);
    EXPECT_GT(rate, last);
    EXPECT_LT(rate, 8e14);
    last = rate;
  }
}

TEST(GpuStepModel, MixedStepAddsTheKernelsAndPricesDecodesInThePrefillKernel) {
  const ModelShape m = *find_model_preset("Llama-3.1-8B");
  const GpuStepCoefficients c = load_gpu_profile("RTX-PRO-6000").step;
  BatchCost decodes = decode_batch(64, 2000);
  BatchCost prefill;
  prefill.add(0, 1024, true);
  BatchCost mixed = decodes;
  mixed.add(0, 1024, true);
  const GpuStepTerms d = gpu_step_terms(c, {&m, 1, 2}, decodes);
  const GpuStepTerms p = gpu_step_terms(c, {&m, 1, 2}, prefill);
  const GpuStepTerms x = gpu_step_terms(c, {&m, 1, 2}, mixed);
  // Not the maximum of the two: the attention of the mixed step is the prefill chunk's kernel
  // plus the decodes inside it, at the mixed rates.
  // The card's prefill kernel reads a decode's KV once per query head: 4 per KV head here.
  ASSERT_EQ(c.mixed_reads_per_query_head, 1);
  const double kv = 64.0 * 2001 * 8 * 128 * 2 * 2;
  const double decodes_in_prefill =
      c.mixed_decode_per_sequence_ns * 64 + 4 * kv / c.mixed_kv_bytes_per_s * 1e9;
  EXPECT_NEAR(x.attention_ns, p.attention_ns + 32 * decodes_in_prefill, 1e-3);
  EXPECT_GT(x.total(), std::max(d.total(), p.total()));
  // On this card decodes beside a prefill read their KV slower than in their own kernel (the
  // profiles: about 1.7 times the time at 4 query heads per KV head).
  EXPECT_GT(x.attention_ns - p.attention_ns, d.attention_ns);
}

TEST(GpuStepModel, MixedDecodesReadTheirKvOncePerQueryHeadAsTheCardSays) {
  // A mixed step's attention less its prefill chunk's own: L x (per-sequence cost x D + KV x
  // (1 + f (G - 1)) / rate), G the query heads per KV head per rank, f the card's
  // mixed_reads_per_query_head. Decode-only steps do not depend on f.
  struct Case {
    std::string model;
    int64_t tp;
    double f;
    double layers, kv_heads_per_rank, query_heads_per_kv_head;
    bool mha = false;  // every query head its own KV head (G = 1)
  };
  const Case cases[] = {{"Llama-3.1-8B", 1, 0, 32, 8, 4},       {"Llama-3.1-8B", 1, 1, 32, 8, 4},
                        {"Llama-3.1-8B", 1, 0.5, 32, 8, 4},     {"Llama-3.1-8B", 2, 1, 32, 4, 4},
                        {"Llama-3.1-8B", 16, 1, 32, 1, 2},      {"Llama-3.2-1B", 1, 1, 16, 8, 4},
                        {"Llama-3.1-70B", 4, 1, 80, 2, 8},      {"Qwen2.5-7B", 1, 1, 28, 4, 7},
                        {"Llama-3.1-8B", 1, 1, 32, 32, 1, true}};
  for (const Case& k : cases) {
    ModelShape m = *find_model_preset(k.model);
    if (k.mha) m.kv_heads = m.heads;
    GpuStepCoefficients c = streaming_only();
    c.mixed_decode_per_sequence_ns = 500;
    c.mixed_reads_per_query_head = k.f;
    const BatchCost decodes = decode_batch(16, 1000);
    BatchCost prefill;
    prefill.add(0, 512, true);
    BatchCost mixed = decodes;
    mixed.add(0, 512, true);
    const GpuStepInputs in{&m, k.tp, 2};
    const double head_dim = static_cast<double>(m.head_dim);
    const double kv = 16.0 * 1001 * k.kv_heads_per_rank * head_dim * 2 * 2;
    const double reads = 1 + k.f * (k.query_heads_per_kv_head - 1);
    const double expected = k.layers * (500.0 * 16 + kv * reads / 1e12 * 1e9);
    EXPECT_NEAR(
        gpu_step_terms(c, in, mixed).attention_ns - gpu_step_terms(c, in, prefill).attention_ns,
        expected, 1e-6 * expected)
        << k.model << " tp" << k.tp << " f " << k.f;
    GpuStepCoefficients once = c;
    once.mixed_reads_per_query_head = 0;
    EXPECT_EQ(gpu_step_terms(c, in, decodes).total(), gpu_step_terms(once, in, decodes).total())
        << k.model;
  }
}

TEST(GpuStepModel, ExpertsTouchedByTopKRouting) {
  EXPECT_DOUBLE_EQ(expected_experts_touched(8, 2, 0), 0);
  EXPECT_DOUBLE_EQ(expected_experts_touched(8, 2, 1), 2);
  EXPECT_DOUBLE_EQ(expected_experts_touched(8, 2, 2), 8 * (1 - 0.75 * 0.75));
  EXPECT_NEAR(expected_experts_touched(128, 8, 1024), 128, 1e-9);
  // A Mixtral decode of one token reads 2 of 8 experts per layer; of 64 tokens, nearly all.
  const ModelShape mixtral =
      load_model_shape(LLM_SOURCE_DIR "/backends/sim/testdata/hf-configs/mixtral-8x7b-v0.1");
  GpuStepCoefficients c = streaming_only();
  const double one = gpu_step_terms(c, {&mixtral, 1, 2}, decode_batch(1, 0)).gemm_ns;
  const double many = gpu_step_terms(c, {&mixtral, 1, 2}, decode_batch(64, 0)).gemm_ns;
  const LayerMatrices x = layer_matrices(mixtral);
  const double lm_head = 2.0 * 32000 * 4096;
  const double router = 2.0 * 4096 * 8;
  const double dense = 2.0 * (x.qkv + x.attn_out) + router;
  EXPECT_NEAR(one, (32 * (dense + 2 * 2.0 * x.expert) + lm_head) / 1e12 * 1e9, 1e-3);
  const double touched = expected_experts_touched(8, 2, 64);
  EXPECT_NEAR(many, (32 * (dense + touched * 2.0 * x.expert) + lm_head) / 1e12 * 1e9, 1e-3);
}

TEST(GpuStepModel, TensorParallelAllReduces) {
  const ModelShape m = *find_model_preset("Llama-3.1-8B");
  GpuStepCoefficients c = streaming_only();
  c.allreduce_ns = 5000;
  c.allreduce_per_doubling_ns = 1000;
  c.link_bytes_per_s = 1e11;
  const BatchCost b = decode_batch(8, 100);
  EXPECT_EQ(gpu_step_terms(c, {&m, 1, 2}, b).allreduce_ns, 0.0);
  // 2 per layer and one after the embedding, each 8 tokens x 4096 x 2 bytes.
  const double bytes = 8.0 * 4096 * 2;
  EXPECT_NEAR(gpu_step_terms(c, {&m, 2, 2}, b).allreduce_ns, 65 * (5000 + 1.0 * bytes / 1e11 * 1e9),
              1e-6);
  EXPECT_NEAR(gpu_step_terms(c, {&m, 4, 2}, b).allreduce_ns,
              65 * (5000 + 1000 + 1.5 * bytes / 1e11 * 1e9), 1e-6);
}

TEST(GpuStepModel, Fp8WeightsStreamHalfTheBytes) {
  ModelShape m = *find_model_preset("Llama-3.1-8B");
  const GpuStepCoefficients c = streaming_only();
  const double bf16 = gpu_step_terms(c, {&m, 1, 2}, decode_batch(1, 0)).gemm_ns;
  m.attention_weight_bytes = 1;
  m.mlp_weight_bytes = 1;
  const double fp8 = gpu_step_terms(c, {&m, 1, 2}, decode_batch(1, 0)).gemm_ns;
  const double lm_head = 2.0 * 128256 * 4096 / 1e12 * 1e9;
  EXPECT_NEAR(fp8 - lm_head, (bf16 - lm_head) / 2, 1e-3);
}

TEST(CostModel, PresetStepsAreInTheMeasuredRange) {
  // H100 SXM, Llama-2-7B shape (Llama-3.1-8B's layers are close): BLIS's runs measured about
  // 7.3 ms per decode step at 9 sequences of ~750 tokens (blis/measured.csv, codegen stage 0).
  const Deployment d =
      deploy("H100-SXM", LLM_SOURCE_DIR "/backends/sim/testdata/hf-configs/llama-3.1-8b-instruct");
  const double ms = nanos_to_ms(step_time_ns(d, decode_batch(9, 750)));
  EXPECT_GT(ms, 5.0);
  EXPECT_LT(ms, 10.0);
  // A 2,048-token prefill is compute-bound: far slower than a decode.
  BatchCost prefill;
  prefill.add(0, 2048, true);
  EXPECT_GT(nanos_to_ms(step_time_ns(d, prefill)), 3 * ms);
}

TEST(CostModel, StepWorkTerms) {
  const Deployment d = deploy("H200", "Llama-3.1-8B");
  BatchCost b;
  b.add(100, 10, false);
  const double p = 32.0 * (4096.0 * 48 * 128 + 32.0 * 128 * 4096 + 3.0 * 4096 * 14336);
  EXPECT_DOUBLE_EQ(step_flops(d, b), 2 * p * 10 + 32.0 * 4 * 32 * 128 * 10 * 105);
  EXPECT_DOUBLE_EQ(step_bytes(d, b), 8030261248.0 * 2 + 110 * 131072.0);
}

TEST(CostModel, EmptyBatchTakesNoTime) {
  EXPECT_EQ(step_time_ns(deploy("H200", "Llama-3.1-8B"), BatchCost{}), 0);
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
  const Deployment d = deploy("H200", "Llama-3.1-70B");
  EXPECT_EQ(kv_block_bytes_per_gpu(d, 16), 16 * kv_bytes_per_token(d.model, 2));
}

TEST(CostModel, KvCapacityIsMemoryLessWeightsAndReserve) {
  const Deployment d = deploy("H100-SXM", "Llama-3.1-8B");
  const double budget = kv_cache_bytes_per_gpu(d, 0.9, 2048, 128);
  const double reserve = non_kv_reserve_bytes(d, 2048, 128);
  EXPECT_NEAR(budget + reserve + 8030261248.0 * 2, d.gpu.datasheet.memory_bytes * 0.9, 1.0);
  // The reserve: about 1-3 GiB on an H100 (vLLM's CUDA context, sampler and activations).
  EXPECT_GT(reserve, 1.0 * (1 << 30));
  EXPECT_LT(reserve, 3.0 * (1 << 30));
  const GpuMemoryCoefficients& c = d.gpu.memory;
  EXPECT_NEAR(reserve,
              c.reserved_bytes + c.sampler_bytes_per_logit * 128 * 128256 +
                  c.activation_bytes_per_hidden * 2048 * 4096,
              1.0);
  EXPECT_NEAR(non_kv_reserve_bytes(deploy("H100-SXM", "Llama-3.1-8B", 2), 2048, 128) - reserve,
              c.tensor_parallel_bytes, 1.0);
  EXPECT_EQ(num_gpu_blocks(d, 0.9, 16, 2048, 128),
            static_cast<int64_t>(std::floor(budget / (2.0 * 1024 * 1024))));
}

TEST(CostModel, Fp8KvDoublesTheBlockCount) {
  for (const std::string& model : model_preset_names()) {
    const int64_t bf16 = num_gpu_blocks(deploy("H200", model, 1, 2), 0.92, 16, 8192, 1024);
    const int64_t fp8 = num_gpu_blocks(deploy("H200", model, 1, 1), 0.92, 16, 8192, 1024);
    if (bf16 <= 0) continue;
    EXPECT_GE(fp8, 2 * bf16) << model;
    EXPECT_LE(fp8, 2 * bf16 + 1) << model;
  }
}

TEST(CostModel, Llama70BDoesNotFitOnOneA100) {
  EXPECT_LE(num_gpu_blocks(deploy("A100-80GB", "Llama-3.1-70B"), 0.92, 16, 8192, 256), 0);
  EXPECT_LE(num_gpu_blocks(deploy("H100-SXM", "Llama-3.1-70B"), 0.92, 16, 8192, 1024), 0);
  EXPECT_GT(num_gpu_blocks(deploy("H100-SXM", "Llama-3.1-70B", 4), 0.92, 16, 8192, 1024), 0);
  EXPECT_GT(num_gpu_blocks(deploy("H200", "Llama-3.1-70B", 2), 0.92, 16, 8192, 1024), 0);
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
  EXPECT_THROW(num_gpu_blocks(deploy("H200", "Llama-3.1-8B"), 0.9, 0, 8192, 256),
               std::invalid_argument);
  Deployment no_link = deploy("H200", "Llama-3.1-8B", 2);
  no_link.gpu.step.link_bytes_per_s = 0;
  EXPECT_THROW(step_time_ns(no_link, decode_batch(1, 1)), std::invalid_argument);
  Deployment broken = deploy("H200", "Llama-3.1-8B");
  broken.gpu.step.weight_bytes_per_s = 0;
  EXPECT_THROW(step_time_ns(broken, decode_batch(1, 1)), std::invalid_argument);
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

// A prefill chunk of more tokens never makes the step cheaper (a decode turning into a chunk
// changes kernels, so the property holds for chunks).
RC_GTEST_PROP(CostModelProperty, MoreNewTokensNeverFaster, ()) {
  const Deployment d = any_deployment();
  std::vector<Seq> seqs = any_batch();
  const size_t i = *rc::gen::inRange<size_t>(0, seqs.size());
  seqs[i].fresh = std::max<int64_t>(seqs[i].fresh, 2);
  const Nanos before = step_time_ns(d, cost_of(seqs));
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
  RC_ASSERT(after >= before + static_cast<Nanos>(d.gpu.step.per_sequence_ns));
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
  RC_ASSERT(num_gpu_blocks(d, high, 16, tokens, 256) >= num_gpu_blocks(d, low, 16, tokens, 256));
}

RC_GTEST_PROP(CostModelProperty, BiggerProfilingStepNeverMoreBlocks, ()) {
  const Deployment d = any_deployment();
  const int64_t small = *rc::gen::inRange<int64_t>(256, 16385);
  const int64_t big = small + *rc::gen::inRange<int64_t>(0, 16385);
  RC_ASSERT(num_gpu_blocks(d, 0.9, 16, big, 256) <= num_gpu_blocks(d, 0.9, 16, small, 256));
}

}  // namespace
}  // namespace llm
