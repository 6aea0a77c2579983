// kernels/reference (what the GPU tests compare the kernels against, standard library only) is
// the CPU backend's math: checked here, in CI, against the backends/cpu functions themselves.
#include "kernels/reference/kernel_reference.h"

#include <gtest/gtest.h>

#include <cmath>

#include "backends/cpu/attention.h"
#include "backends/cpu/paged_kv_cache.h"
#include "backends/cpu/rope.h"
#include "backends/cpu/sampler.h"
#include "backends/cpu/vector_ops.h"
#include "backends/cuda/weight_packing.h"
#include "core/rng.h"

namespace llm {
namespace {

namespace ref = kernels::reference;

std::vector<float> random_floats(Rng& rng, size_t n, double lo, double hi) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(lo + (hi - lo) * rng.uniform());
  return v;
}

TEST(KernelReference, Bf16ConversionIsTheBackendsConversion) {
  Rng rng(1);
  for (float x : random_floats(rng, 10000, -1e4, 1e4)) {
    EXPECT_EQ(ref::to_bf16(x), float_to_bf16(x));
    EXPECT_EQ(ref::from_bf16(ref::to_bf16(x)), bf16_to_float(float_to_bf16(x)));
  }
}

TEST(KernelReference, Fp8E4m3CodesRoundTripAndSaturate) {
  struct Row {
    float in;
    float out;
  };
  const Row table[] = {{1.0f, 1.0f},      {448.0f, 448.0f},
                       {1000.0f, 448.0f}, {-1000.0f, -448.0f},
                       {0.0f, 0.0f},      {1.0625f, 1.0f},                // tie: even
                       {1.1875f, 1.25f},  {0.001953125f, 0.001953125f}};  // 2^-9, subnormal
  for (const Row& r : table) EXPECT_EQ(ref::from_fp8_e4m3(ref::to_fp8_e4m3(r.in)), r.out) << r.in;
  for (int c = 0; c < 0x7f; ++c) {
    EXPECT_EQ(ref::to_fp8_e4m3(ref::from_fp8_e4m3(static_cast<uint8_t>(c))), c);
  }
}

TEST(KernelReference, RmsNormAndSiluMatchVectorOps) {
  Rng rng(2);
  const std::vector<float> x = random_floats(rng, 2048, -3, 3), w = random_floats(rng, 2048, 0, 2);
  std::vector<float> a(2048), b(2048);
  rms_norm(x.data(), w.data(), 2048, 1e-5, a.data());
  ref::ref_rms_norm(x.data(), w.data(), 2048, 1e-5, b.data());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-5 * std::fabs(a[i]) + 1e-6);
  silu_mul(x.data(), w.data(), 2048, a.data());
  ref::ref_silu_mul(x.data(), w.data(), 2048, b.data());
  // The CPU's silu_mul uses its vectorised exp (within 2 ulp of std::exp, backends/cpu/fast_exp.h),
  // the reference std::exp: a few ulp apart.
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6 * std::fabs(a[i]) + 1e-7);
}

TEST(KernelReference, RopeMatchesTheCpuRotationWithLlama3Factors) {
  ModelConfig c;
  c.head_dim = 64;
  c.rope_theta = 500000.0;
  c.rope_scaling.type = RopeScaling::Type::kLlama3;
  c.rope_scaling.factor = 8.0;
  c.rope_scaling.original_max_position_embeddings = 64;
  const std::vector<double> inv = rope_inv_freq(c);
  Rng rng(3);
  for (int64_t pos : {0, 1, 17, 1000, 131071}) {
    std::vector<float> a = random_floats(rng, 64, -2, 2), b = a, cs(32), sn(32);
    rope_angles(inv, pos, cs.data(), sn.data());
    apply_rope(a.data(), cs.data(), sn.data(), 64);
    ref::ref_rope(b.data(), 64, inv, pos, false);
    EXPECT_EQ(a, b) << "pos " << pos;
  }
}

TEST(KernelReference, InterleavedRopeIsRotateHalfOnPermutedDimensions) {
  std::vector<double> inv(8);
  for (size_t i = 0; i < inv.size(); ++i) inv[i] = std::pow(10000.0, -2.0 * i / 16);
  Rng rng(4);
  std::vector<float> half = random_floats(rng, 16, -1, 1), inter(16);
  for (int i = 0; i < 8; ++i) {
    inter[2 * i] = half[i];
    inter[2 * i + 1] = half[i + 8];
  }
  ref::ref_rope(half.data(), 16, inv, 33, false);
  ref::ref_rope(inter.data(), 16, inv, 33, true);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(inter[2 * i], half[i]);
    EXPECT_EQ(inter[2 * i + 1], half[i + 8]);
  }
}

TEST(KernelReference, AttentionMatchesPagedAttention) {
  const int64_t d = 32, bs = 4, n = 11;
  PagedKvCache kv(8, 1, 1, d, bs);
  const std::vector<int32_t> table = {5, 1, 7};
  Rng rng(5);
  ref::RefKv flat;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t block = table[static_cast<size_t>(j / bs)], slot = j % bs;
    const int64_t v_off = kv.v_offset(0, block, 0, slot);
    for (int64_t i = 0; i < d; ++i) {
      float& key = kv.k[kv.k_index(0, block, 0, slot, i)];
      key = static_cast<float>(rng.uniform() - 0.5);
      kv.v[v_off + i] = static_cast<float>(rng.uniform() - 0.5);
      flat.k.push_back(key);
      flat.v.push_back(kv.v[v_off + i]);
    }
  }
  const std::vector<float> q = random_floats(rng, d, -1, 1);
  std::vector<float> a(d), b(d), scratch;
  paged_attention(q.data(), kv, 0, 0, table, n - 1, 0.17f, scratch, a.data());
  ref::ref_attention(q.data(), flat, d, n - 1, 0.17f, b.data());
  for (int64_t i = 0; i < d; ++i) EXPECT_NEAR(a[i], b[i], 1e-6);
}

TEST(KernelReference, SampleMatchesTheCpuSamplerTokenForToken) {
  Rng rng(6);
  const double temps[] = {0.0, 0.5, 1.0};
  const int32_t top_ks[] = {0, 1, 7, 500};
  const double top_ps[] = {1.0, 0.8, 0.05};
  int rows = 0;
  for (double t : temps) {
    for (int32_t k : top_ks) {
      for (double p : top_ps) {
        std::vector<float> logits = random_floats(rng, 500, -5, 5);
        logits[17] = logits[400] = 6.0f;  // a tie in the head: the lower id first
        SamplingParams params;
        params.temperature = t;
        params.top_k = k;
        params.top_p = p;
        params.seed = rng.next_u64();
        const int64_t counter = static_cast<int64_t>(rng.below(100));
        const int32_t cpu = sample_token(logits, params, sampling_seed(params, counter));
        const int32_t mine =
            ref::ref_sample(logits, {t, p, k, params.seed, static_cast<uint64_t>(counter)});
        EXPECT_EQ(mine, cpu) << "t " << t << " k " << k << " p " << p;
        ++rows;
      }
    }
  }
  EXPECT_EQ(rows, 36);
  EXPECT_EQ(ref::ref_uniform(42, 7), Rng(hash_combine(42, 7)).uniform());
}

}  // namespace
}  // namespace llm
