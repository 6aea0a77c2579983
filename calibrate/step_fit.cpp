#include "calibrate/step_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "calibrate/step_noise_quantiles.h"
#include "core/sample_stats.h"

namespace llm {
namespace {

constexpr int kTerms = StepFeatures::kCount;
using Vector = std::array<double, kTerms>;

// Solves the weighted least-squares problem over the terms in `active` (the others fixed at 0)
// by the normal equations with a tiny ridge for collinear terms; Gaussian elimination with
// partial pivoting.
Vector solve(const std::vector<Vector>& rows, const std::vector<double>& targets,
             const std::vector<double>& weights, const std::array<bool, kTerms>& active) {
  std::array<std::array<double, kTerms + 1>, kTerms> a{};
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int i = 0; i < kTerms; ++i) {
      if (!active[i]) continue;
      for (int j = 0; j < kTerms; ++j) {
        if (active[j]) a[i][j] += weights[r] * rows[r][i] * rows[r][j];
      }
      a[i][kTerms] += weights[r] * rows[r][i] * targets[r];
    }
  }
  // Columns scaled to unit weighted norm (the terms differ by six orders of magnitude), and a
  // small ridge so that terms that move together share their weight instead of diverging.
  std::array<double, kTerms> scale;
  for (int i = 0; i < kTerms; ++i) scale[i] = a[i][i] > 0 ? std::sqrt(a[i][i]) : 1;
  for (int i = 0; i < kTerms; ++i) {
    for (int j = 0; j < kTerms; ++j) a[i][j] /= scale[i] * scale[j];
    a[i][kTerms] /= scale[i];
    if (!active[i]) {
      std::fill(a[i].begin(), a[i].end(), 0.0);
      for (int r = 0; r < kTerms; ++r) a[r][i] = 0;
      a[i][i] = 1;  // x_i = 0
    } else {
      a[i][i] += 1e-7;
    }
  }
  for (int col = 0; col < kTerms; ++col) {
    int pivot = col;
    for (int r = col + 1; r < kTerms; ++r) {
      if (std::abs(a[r][col]) > std::abs(a[pivot][col])) pivot = r;
    }
    std::swap(a[col], a[pivot]);
    if (a[col][col] == 0) continue;  // a term that never varies: left at 0
    for (int r = 0; r < kTerms; ++r) {
      if (r == col || a[r][col] == 0) continue;
      const double f = a[r][col] / a[col][col];
      for (int c = col; c <= kTerms; ++c) a[r][c] -= f * a[col][c];
    }
  }
  Vector x{};
  for (int i = 0; i < kTerms; ++i) {
    x[i] = a[i][i] == 0 ? 0 : a[i][kTerms] / a[i][i] / scale[i];
  }
  return x;
}

// Non-negative coefficients: drop the most negative term and refit until none is negative.
Vector solve_non_negative(const std::vector<Vector>& rows, const std::vector<double>& targets,
                          const std::vector<double>& weights) {
  std::array<bool, kTerms> active;
  active.fill(true);
  for (;;) {
    const Vector x = solve(rows, targets, weights, active);
    int worst = -1;
    for (int i = 0; i < kTerms; ++i) {
      if (active[i] && x[i] < 0 && (worst < 0 || x[i] < x[worst])) worst = i;
    }
    if (worst < 0) return x;
    active[worst] = false;
  }
}

FittedStepModel model_of(const Vector& x, double token_knee, double sample_knee) {
  return FittedStepModel{x[0], x[1], x[2], token_knee, x[3], x[4], x[5], sample_knee, x[6]};
}

// Knee candidates: 0 and a geometric ladder (ratio about 1.25) up to the largest value seen.
std::vector<double> knee_grid(double largest) {
  std::vector<double> grid = {0};
  for (double k = 1; k <= largest; k = std::max(k + 1, std::round(k * 1.25))) grid.push_back(k);
  return grid;
}

// The weighted least-squares problem of one pair of knees.
class KneeProblem {
 public:
  explicit KneeProblem(const std::vector<StepSample>& samples) : samples_(samples) {
    for (const StepSample& s : samples) {
      if (!(s.ns > 0) || !std::isfinite(s.ns)) {
        throw std::invalid_argument("fit: a measured step time is not a positive number");
      }
      targets_.push_back(s.ns);
      weights_.push_back(1.0 / (s.ns * s.ns));
    }
  }

  // The best model with these knees and its weighted squared error.
  std::pair<FittedStepModel, double> fit(double token_knee, double sample_knee) const {
    std::vector<Vector> rows;
    for (const StepSample& s : samples_) {
      const StepFeatures f = step_features(s.cost, token_knee, sample_knee);
      Vector row;
      std::copy(std::begin(f.values), std::end(f.values), row.begin());
      rows.push_back(row);
    }
    const Vector x = solve_non_negative(rows, targets_, weights_);
    double error = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
      double predicted = 0;
      for (int i = 0; i < kTerms; ++i) predicted += x[i] * rows[r][i];
      error += weights_[r] * (predicted - targets_[r]) * (predicted - targets_[r]);
    }
    return {model_of(x, token_knee, sample_knee), error};
  }

 private:
  const std::vector<StepSample>& samples_;
  std::vector<double> targets_, weights_;
};

// Scans `values` for a knee (the other knee fixed) that fits better than `current` does with
// `best_error`; returns the best, and lowers best_error to its error.
template <typename FitFn>
double best_knee(const std::vector<double>& values, double current, FitFn&& fit,
                 double& best_error) {
  double best = current;
  for (double v : values) {
    const double error = fit(v);
    if (error < best_error) {
      best_error = error;
      best = v;
    }
  }
  return best;
}

// Every integer between the grid neighbours of `knee` (at most 200 of them, evenly spaced).
std::vector<double> around(const std::vector<double>& grid, double knee) {
  const auto it = std::find(grid.begin(), grid.end(), knee);
  const double lo = it == grid.begin() ? 0 : *(it - 1);
  const double hi = it + 1 == grid.end() ? knee : *(it + 1);
  std::vector<double> out;
  const double step = std::max(1.0, std::floor((hi - lo) / 200));
  for (double v = lo; v <= hi; v += step) out.push_back(v);
  return out;
}

// `model` with its relative errors and quality over `samples` (not empty, times positive).
StepFit with_quality(const FittedStepModel& model, const std::vector<StepSample>& samples) {
  StepFit fit;
  fit.model = model;
  std::vector<double> absolute;
  for (const StepSample& s : samples) {
    const double predicted = static_cast<double>(fitted_step_time_ns(model, s.cost));
    fit.relative_errors.push_back((predicted - s.ns) / s.ns);
    absolute.push_back(std::abs(fit.relative_errors.back()));
  }
  fit.quality.steps = static_cast<int64_t>(samples.size());
  fit.quality.median_abs_error = quantile(absolute, 0.5);
  fit.quality.p90_abs_error = quantile(absolute, 0.9);
  fit.quality.max_abs_error = *std::max_element(absolute.begin(), absolute.end());
  return fit;
}

}  // namespace

StepFit fit_step_model(const std::vector<StepSample>& samples) {
  if (samples.size() < static_cast<size_t>(kTerms)) {
    throw std::invalid_argument("fit: " + std::to_string(samples.size()) +
                                " measured steps are too few for " + std::to_string(kTerms) +
                                " coefficients");
  }
  const KneeProblem problem(samples);
  double max_tokens = 0, max_samples = 0;
  for (const StepSample& s : samples) {
    max_tokens = std::max(max_tokens, static_cast<double>(s.cost.new_tokens));
    max_samples = std::max(max_samples, static_cast<double>(s.cost.sampling_sequences));
  }
  // 1. The coarse grid of both knees together.
  const std::vector<double> token_grid = knee_grid(max_tokens);
  const std::vector<double> sample_grid = knee_grid(max_samples);
  double error = INFINITY, token_knee = 0, sample_knee = 0;
  for (double t : token_grid) {
    for (double s : sample_grid) {
      const double e = problem.fit(t, s).second;
      if (e < error) {
        error = e;
        token_knee = t;
        sample_knee = s;
      }
    }
  }
  // 2. Each knee refined to the integers between its grid neighbours.
  token_knee = best_knee(
      around(token_grid, token_knee), token_knee,
      [&](double t) { return problem.fit(t, sample_knee).second; }, error);
  sample_knee = best_knee(
      around(sample_grid, sample_knee), sample_knee,
      [&](double s) { return problem.fit(token_knee, s).second; }, error);
  return with_quality(problem.fit(token_knee, sample_knee).first, samples);
}

StepFit fit_step_model_to_total(const std::vector<StepSample>& samples) {
  FittedStepModel m = fit_step_model(samples).model;
  double measured = 0, predicted = 0;
  for (const StepSample& s : samples) {
    measured += s.ns;
    predicted += static_cast<double>(fitted_step_time_ns(m, s.cost));
  }
  return with_quality(scaled_step_model(m, measured / predicted), samples);
}

StepTimeNoise step_noise_of_fit(const StepFit& fit, const std::vector<StepSample>& samples) {
  if (samples.size() != fit.relative_errors.size()) {
    throw std::invalid_argument("step time noise: " + std::to_string(samples.size()) +
                                " samples for a fit of " +
                                std::to_string(fit.relative_errors.size()));
  }
  std::vector<double> ratios;
  ratios.reserve(samples.size());
  double measured = 0, modelled = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    const double predicted = samples[i].ns * (1 + fit.relative_errors[i]);
    ratios.push_back(samples[i].ns / predicted);
    measured += samples[i].ns;
    modelled += predicted;
  }
  StepTimeNoise noise = step_noise_from_ratios(std::move(ratios));
  const double factor = measured / (modelled * step_noise_mean(noise));
  for (double& r : noise.ratios) r *= factor;
  return noise;
}

StepLogFit fit_step_log(const std::vector<StepSample>& samples, bool keep_scatter) {
  // With the scatter kept, the model prices the typical step and the scatter's mean makes up the
  // sum; without it, the model is scaled to the sum.
  StepLogFit f;
  f.fit = keep_scatter ? fit_step_model(samples) : fit_step_model_to_total(samples);
  if (keep_scatter) f.noise = step_noise_of_fit(f.fit, samples);
  return f;
}

}  // namespace llm
