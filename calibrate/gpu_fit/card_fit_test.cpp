// Tests of fit_card's treatment of stages without samples: decodes beside a prefill chunk cost as
// in the card's own decode kernel (another card's ratios are not transferred), while the cached
// prefix read of a chunk still takes the reference card's ratio.
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
  EXPECT_DOUBLE_EQ(fit.coefficients.prefill_kv_bytes_per_s, 3e12 * 0.25);
  const auto& u = fit.unfitted;
  EXPECT_NE(std::find(u.begin(), u.end(), "mixed attention (priced as the decode kernel)"),
            u.end());
}

}  // namespace
}  // namespace llm
