// Tests of fit_card's treatment of stages without samples: decodes beside a prefill chunk cost as
// in the card's own decode kernel (another card's ratios are not transferred), while the cached
// prefix read of a chunk still takes the reference card's ratio; and of the mixed stage with
// samples: their KV read once per query head, so models of 4 and 8 query heads per KV head share
// one rate.
// Thread-safety: single-threaded tests.
#include "calibrate/gpu_fit/card_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace llm {
namespace {

GpuStepCoefficients card() {
  GpuStepCoefficients c;
  c.kv_bytes_per_s = 3e12;
  c.decode_per_sequence_ns = 50;
  c.prefill_kv_bytes_per_s = 1e12;
  c.mixed_kv_bytes_per_s = 1e12;
  c.mixed_decode_per_sequence_ns = 700;
  return c;
}

TEST(CardFit, DecodesBesideAChunkCostAsTheDecodeKernelWithoutMixedSamples) {
  GpuStepCoefficients reference = card();
  reference.kv_bytes_per_s = 1.4e12;
  reference.prefill_kv_bytes_per_s = 0.35e12;
  reference.mixed_kv_bytes_per_s = 0.55e12;  // the RTX PRO 6000's mixed/decode ratio
  reference.mixed_decode_per_sequence_ns = 650;
  const CardFit fit = fit_card(card(), {}, {}, {}, -1, &reference);
  EXPECT_EQ(fit.coefficients.mixed_kv_bytes_per_s, 3e12);
  EXPECT_EQ(fit.coefficients.mixed_decode_per_sequence_ns, 50);
  EXPECT_EQ(fit.coefficients.mixed_reads_per_query_head, 0);
  EXPECT_DOUBLE_EQ(fit.coefficients.prefill_kv_bytes_per_s, 3e12 * 0.25);
  const auto& u = fit.unfitted;
  EXPECT_NE(std::find(u.begin(), u.end(), "mixed attention (priced as the decode kernel)"),
            u.end());
}

TEST(CardFit, MixedSamplesOfTwoGroupSizesFitOneRatePerQueryHead) {
  // Profiled mixed rows as the RTX PRO 6000's look: the decodes' extra time is the same for a
  // model of 8 KV heads (G = 4) and one of 4 (G = 8) at 32 query heads, i.e. the same bytes per
  // query head. Made here from a card reading 2 TB/s per query head at 600 ns per sequence.
  GpuStepCoefficients prior = card();
  prior.attention_flops = 5e14;  // the chunk's own kernel, as fitted before this stage
  prior.prefill_kernel_ns = 5e3;
  GpuStepCoefficients truth = prior;
  truth.mixed_reads_per_query_head = 1;
  truth.mixed_kv_bytes_per_s = 2e12;
  truth.mixed_decode_per_sequence_ns = 600;
  std::vector<OpSample> samples;
  for (double kv_heads : {8.0, 4.0}) {
    for (double decodes : {4.0, 16.0, 64.0}) {
      for (double context : {512.0, 2048.0, 8192.0}) {
        OpSample s;
        s.card = "test";
        s.group = "kv" + std::to_string(static_cast<int>(kv_heads));
        s.kind = OpKind::kMixedAttention;
        s.decode_sequences = decodes;
        s.decode_kv_bytes = decodes * (context + 1) * 2 * kv_heads * 128 * 2;
        s.query_heads_per_kv_head = 32 / kv_heads;
        s.prefill_tokens = 256;
        s.heads = 32;
        s.head_dim = 128;
        s.pairs = 256 * 128;
        s.measured_ns = predict_op_ns(truth, s);
        samples.push_back(s);
      }
    }
  }
  const CardFit fit = fit_card(prior, samples, {}, {}, -1, nullptr);
  EXPECT_EQ(fit.coefficients.mixed_reads_per_query_head, 1);
  EXPECT_NEAR(fit.coefficients.mixed_kv_bytes_per_s / 2e12, 1.0, 0.01);
  EXPECT_NEAR(fit.coefficients.mixed_decode_per_sequence_ns / 600, 1.0, 0.05);
  const auto stage = std::find_if(fit.stages.begin(), fit.stages.end(), [](const StageResidual& r) {
    return r.stage == "mixed attention";
  });
  ASSERT_NE(stage, fit.stages.end());
  EXPECT_LT(stage->errors.max, 0.01);
}

}  // namespace
}  // namespace llm
