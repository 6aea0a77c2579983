// Deterministic nonlinear least squares for the GPU coefficient fit: Nelder-Mead over the
// logarithms of positive parameters, minimizing the squared log ratio of predicted to measured
// times (so that every sample counts by its relative error), with robust trimming: after each fit
// the samples whose |log ratio| exceeds max(4 x the median, 0.1) are set aside and the fit is
// repeated (three rounds), so that a few broken profile rows (a GEMM timed at twice its
// neighbours) do not pull the coefficients.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace llm {

struct LogFitResult {
  std::vector<double> params;
  std::vector<double> errors;  // predicted / measured - 1 per sample, with the final params
  std::vector<bool> kept;      // false: trimmed as an outlier
};

// predict(params, i) is the model's time of sample i; measured[i] > 0. params start at x0 (> 0).
// weights (empty: all 1) scale each sample's squared log ratio.
LogFitResult fit_log_least_squares(
    const std::function<double(const std::vector<double>&, size_t)>& predict,
    const std::vector<double>& measured, const std::vector<double>& x0, bool trim = true,
    const std::vector<double>& weights = {});

// Nelder-Mead minimization of f from x0 with initial steps `step` (deterministic).
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f,
                                std::vector<double> x0, const std::vector<double>& step,
                                int max_iterations = 4000);

// Median, 90th percentile and maximum of |errors| over the kept samples (0 when none).
struct ErrorSummary {
  size_t samples = 0;
  double median = 0, p90 = 0, max = 0;
  double signed_median = 0;
};
ErrorSummary summarize_errors(const std::vector<double>& errors,
                              const std::vector<bool>* kept = nullptr);

}  // namespace llm
