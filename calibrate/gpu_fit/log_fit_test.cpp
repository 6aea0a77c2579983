// Tests of the fit machinery: Nelder-Mead finds a known minimum; the log least-squares fit
// recovers coefficients from samples the GPU step model generated, and sets a planted outlier
// aside; error summaries.
// Thread-safety: single-threaded tests.
#include "calibrate/gpu_fit/log_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "backends/sim/gpu_step_model.h"

namespace llm {
namespace {

TEST(LogFit, NelderMeadFindsTheMinimum) {
  const auto f = [](const std::vector<double>& x) {
    return (x[0] - 3) * (x[0] - 3) + 10 * (x[1] + 1) * (x[1] + 1) + 1;
  };
  const std::vector<double> x = nelder_mead(f, {0, 0}, {1, 1});
  EXPECT_NEAR(x[0], 3, 1e-4);
  EXPECT_NEAR(x[1], -1, 1e-4);
}

TEST(LogFit, RecoversGemmCoefficientsAndTrimsAnOutlier) {
  GpuStepCoefficients truth;
  truth.gemm_kernel_ns = 3500;
  truth.weight_bytes_per_s = 2.9e12;
  truth.gemm_flops_bf16 = 8e14;
  truth.gemm_sharpness = 4.5;
  std::vector<double> params, tokens, measured;
  for (double p : {3e7, 1e8, 2e8, 4e8}) {
    for (double n = 1; n <= 8192; n *= 2) {
      params.push_back(p);
      tokens.push_back(n);
      measured.push_back(gemm_ns(truth, p, 2, n));
    }
  }
  measured[20] *= 2.5;  // one broken row
  const auto predict = [&](const std::vector<double>& x, size_t i) {
    GpuStepCoefficients c;
    c.gemm_kernel_ns = x[0];
    c.weight_bytes_per_s = x[1];
    c.gemm_flops_bf16 = x[2];
    c.gemm_sharpness = x[3];
    return gemm_ns(c, params[i], 2, tokens[i]);
  };
  const LogFitResult r = fit_log_least_squares(predict, measured, {1000, 2e12, 5e14, 2});
  EXPECT_NEAR(r.params[0] / 3500, 1, 0.02);
  EXPECT_NEAR(r.params[1] / 2.9e12, 1, 0.01);
  EXPECT_NEAR(r.params[2] / 8e14, 1, 0.01);
  EXPECT_NEAR(r.params[3] / 4.5, 1, 0.05);
  EXPECT_FALSE(r.kept[20]);
  EXPECT_NEAR(r.errors[20], 1 / 2.5 - 1, 0.02);
  const ErrorSummary e = summarize_errors(r.errors, &r.kept);
  EXPECT_EQ(e.samples, measured.size() - 1);
  EXPECT_LT(e.max, 0.01);
}

TEST(LogFit, ErrorSummary) {
  const ErrorSummary e = summarize_errors({-0.1, 0.2, 0.05, -0.3});
  EXPECT_EQ(e.samples, 4u);
  EXPECT_DOUBLE_EQ(e.max, 0.3);
  EXPECT_DOUBLE_EQ(e.median, 0.15);
  EXPECT_DOUBLE_EQ(e.signed_median, -0.025);
  std::vector<bool> kept = {true, false, true, false};
  EXPECT_DOUBLE_EQ(summarize_errors({-0.1, 0.2, 0.05, -0.3}, &kept).max, 0.1);
  EXPECT_EQ(summarize_errors({}).samples, 0u);
}

}  // namespace
}  // namespace llm
