// fast_exp.h's exp against std::exp over the float range, and SiLU (vector_ops.h's silu_mul, which
// uses it) on every SIMD path against double precision, with each element's bits independent of
// the length of the call (the vector tails are masked, never computed another way).
#include "backends/cpu/fast_exp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "backends/cpu/matmul.h"
#include "backends/cpu/vector_ops.h"
#include "core/rng.h"

namespace llm {
namespace {

TEST(FastExp, ScalarIsWithinTwoUlpOfStdExp) {
  double worst = 0;
  for (float x = -87.0f; x <= 88.0f; x += 0.001f) {
    const double ref = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::abs(fast_exp_scalar(x) - ref) / ref);
  }
  EXPECT_LT(worst, 2.5e-7);  // 2 ulp: 2 * 2^-23
  EXPECT_EQ(fast_exp_scalar(0.0f), 1.0f);
  EXPECT_EQ(fast_exp_scalar(-100.0f), 0.0f);
  EXPECT_EQ(fast_exp_scalar(-INFINITY), 0.0f);
  EXPECT_TRUE(std::isfinite(fast_exp_scalar(1000.0f)));
}

class SiluTest : public ::testing::TestWithParam<SimdLevel> {
 protected:
  void SetUp() override {
    force_simd_level(GetParam());
    if (simd_level() != GetParam()) GTEST_SKIP() << "this CPU lacks " << simd_name(GetParam());
  }
  void TearDown() override { force_simd_level(SimdLevel::kAvx512); }
};

TEST_P(SiluTest, MatchesDoubleAndEachElementIgnoresTheLength) {
  Rng rng(11);
  const int64_t n = 1001;
  std::vector<float> g(n), u(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    g[i] = static_cast<float>(200 * rng.uniform() - 100);
    u[i] = static_cast<float>(2 * rng.uniform() - 1);
  }
  g[0] = 0.0f;
  g[1] = -95.0f;  // exp(95) clamps: silu is then about -95 * e^-88
  g[2] = 95.0f;
  silu_mul(g.data(), u.data(), n, out.data());
  for (int64_t i = 0; i < n; ++i) {
    const double gd = g[i], ref = gd / (1.0 + std::exp(-gd)) * u[i];
    ASSERT_NEAR(out[i], ref, 6e-7 * std::abs(ref) + 1e-30) << "g " << g[i];
  }
  for (int64_t len : {1, 7, 8, 15, 16, 17, 33}) {
    for (int64_t start : {0, 3, 500}) {
      std::vector<float> part(static_cast<size_t>(len));
      silu_mul(g.data() + start, u.data() + start, len, part.data());
      for (int64_t i = 0; i < len; ++i) ASSERT_EQ(part[i], out[start + i]) << start << "+" << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Simd, SiluTest,
                         ::testing::Values(SimdLevel::kPortable, SimdLevel::kAvx2Fma,
                                           SimdLevel::kAvx512),
                         [](const auto& info) { return simd_name(info.param); });

}  // namespace
}  // namespace llm
