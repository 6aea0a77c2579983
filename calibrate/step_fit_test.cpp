// The step-model fit: steps priced by a known model are recovered to rounding, noisy ones to
// about their noise, the result is deterministic, and too little data is refused.
#include "calibrate/step_fit.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/rng.h"

namespace llm {
namespace {

FittedStepModel truth() { return FittedStepModel{3e6, 2e5, 4e5, 48, 30, 2.5, 6e5, 3, 7e5}; }

// The batches a calibration produces: prefills of several sizes, decodes of several batch sizes
// and contexts, and mixed steps.
std::vector<BatchCost> batches() {
  std::vector<BatchCost> out;
  for (int64_t p : {8, 16, 32, 64, 128, 256, 512, 1024}) {
    BatchCost b;
    b.add(0, p, true);
    out.push_back(b);
  }
  for (int64_t n : {1, 2, 4, 8, 16}) {
    for (int64_t c : {16, 128, 512, 1024}) {
      BatchCost b;
      for (int64_t i = 0; i < n; ++i) b.add(c, 1, true);
      out.push_back(b);
    }
  }
  for (int64_t n : {2, 8}) {
    BatchCost b;
    for (int64_t i = 0; i < n; ++i) b.add(64, 1, true);
    b.add(0, 256, false);  // a prefill chunk that does not sample yet
    out.push_back(b);
  }
  return out;
}

std::vector<StepSample> priced(const FittedStepModel& m, double noise, uint64_t seed) {
  std::vector<StepSample> samples;
  Rng rng(seed);
  for (const BatchCost& b : batches()) {
    const double jitter = 1 + noise * (2 * rng.uniform() - 1);
    samples.push_back({b, static_cast<double>(fitted_step_time_ns(m, b)) * jitter});
  }
  return samples;
}

TEST(StepFit, StepsPricedByAKnownModelAreRecovered) {
  const StepFit fit = fit_step_model(priced(truth(), 0, 1));
  EXPECT_LT(fit.quality.max_abs_error, 1e-3);
  EXPECT_EQ(fit.quality.steps, static_cast<int64_t>(batches().size()));
  // The recovered model prices batches it never saw as the truth does.
  BatchCost unseen;
  for (int i = 0; i < 5; ++i) unseen.add(300, 1, true);
  unseen.add(0, 100, true);
  const double want = static_cast<double>(fitted_step_time_ns(truth(), unseen));
  EXPECT_NEAR(static_cast<double>(fitted_step_time_ns(fit.model, unseen)), want, 0.01 * want);
}

TEST(StepFit, NoisyStepsGiveErrorsOfAboutTheNoiseAndTheSameFitTwice) {
  const std::vector<StepSample> samples = priced(truth(), 0.05, 7);
  const StepFit a = fit_step_model(samples);
  const StepFit b = fit_step_model(samples);
  EXPECT_LT(a.quality.median_abs_error, 0.05);
  EXPECT_LT(a.quality.max_abs_error, 0.15);
  EXPECT_EQ(a.model.per_token_ns, b.model.per_token_ns);
  EXPECT_EQ(a.model.token_knee, b.model.token_knee);
  EXPECT_EQ(a.relative_errors, b.relative_errors);
  EXPECT_EQ(fitted_model_problem(a.model), "");
}

// Right-skewed noise (a step is now and then much slower, never much faster), as a server's step
// log has: the relative fit comes out low in sum, the fit to the total adds up exactly and stays
// as close step by step.
TEST(StepFit, FitToTheTotalIsUnbiasedInSumUnderSkewedNoise) {
  std::vector<StepSample> samples;
  Rng rng(11);
  for (int repeat = 0; repeat < 20; ++repeat) {
    for (const BatchCost& b : batches()) {
      const double slow = rng.uniform() < 0.2 ? 1.5 : 1.0;  // one step in five half again as slow
      samples.push_back({b, static_cast<double>(fitted_step_time_ns(truth(), b)) * slow});
    }
  }
  auto sum_error = [&samples](const StepFit& fit) {
    double measured = 0, predicted = 0;
    for (const StepSample& s : samples) {
      measured += s.ns;
      predicted += static_cast<double>(fitted_step_time_ns(fit.model, s.cost));
    }
    return predicted / measured - 1;
  };
  const StepFit relative = fit_step_model(samples);
  const StepFit total = fit_step_model_to_total(samples);
  EXPECT_LT(sum_error(relative), -0.03);
  EXPECT_NEAR(sum_error(total), 0, 1e-6);
  EXPECT_LT(total.quality.median_abs_error, 0.15);
  EXPECT_EQ(total.model.token_knee, relative.model.token_knee);
  EXPECT_EQ(fitted_model_problem(total.model), "");
}

// The same skew kept as the scatter instead: the ratios' quantiles show the two speeds, and the
// model's sum times the scatter's mean is the measured sum, as a replay that draws from it pays.
TEST(StepFit, SkewedNoiseIsKeptAsTheScatterWhoseMeanMakesUpTheSum) {
  std::vector<StepSample> samples;
  Rng rng(11);
  for (int repeat = 0; repeat < 20; ++repeat) {
    for (const BatchCost& b : batches()) {
      const double slow = rng.uniform() < 0.2 ? 1.5 : 1.0;
      samples.push_back({b, static_cast<double>(fitted_step_time_ns(truth(), b)) * slow});
    }
  }
  const StepFit fit = fit_step_model(samples);
  const StepTimeNoise noise = step_noise_of_fit(fit, samples);
  EXPECT_EQ(step_noise_problem(noise), "");
  EXPECT_NEAR(step_noise_ratio(noise, 0.9) / step_noise_ratio(noise, 0.5), 1.5, 0.05);
  EXPECT_NEAR(step_noise_ratio(noise, 0.5), step_noise_ratio(noise, 0.1), 0.03);  // the fast 80%
  double measured = 0, modelled = 0;
  for (const StepSample& s : samples) {
    measured += s.ns;
    modelled += static_cast<double>(fitted_step_time_ns(fit.model, s.cost));
  }
  EXPECT_NEAR(modelled * step_noise_mean(noise) / measured, 1.0, 1e-9);
  // The same when the slow steps are all the dear ones, where the plain mean of the ratios is off.
  std::vector<StepSample> dear_slow;
  for (const BatchCost& b : batches()) {
    const double t = static_cast<double>(fitted_step_time_ns(truth(), b));
    dear_slow.push_back({b, b.new_tokens >= 256 ? 1.5 * t : t});
  }
  const StepFit dear_fit = fit_step_model(dear_slow);
  const StepTimeNoise dear = step_noise_of_fit(dear_fit, dear_slow);
  double dear_measured = 0, dear_modelled = 0, plain_mean = 0;
  for (size_t i = 0; i < dear_slow.size(); ++i) {
    dear_measured += dear_slow[i].ns;
    dear_modelled += static_cast<double>(fitted_step_time_ns(dear_fit.model, dear_slow[i].cost));
    plain_mean += 1 / (1 + dear_fit.relative_errors[i]) / static_cast<double>(dear_slow.size());
  }
  EXPECT_NEAR(dear_modelled * step_noise_mean(dear) / dear_measured, 1.0, 1e-9);
  EXPECT_GT(std::abs(dear_modelled * plain_mean / dear_measured - 1), 0.01);  // what it corrects
  // A fit of fewer than two steps has no scatter to keep; samples not the fit's are refused.
  StepFit one;
  one.relative_errors = {0.1};
  EXPECT_THROW(step_noise_of_fit(one, {samples[0]}), std::invalid_argument);
  EXPECT_THROW(step_noise_of_fit(fit, {samples[0], samples[1]}), std::invalid_argument);
}

// A step log's fit: the typical step and its scatter, or without the scatter the model scaled to
// the total; the same fits the two functions give on their own.
TEST(StepFit, AStepLogsFitKeepsTheScatterOrScalesToTheTotal) {
  std::vector<StepSample> samples;
  Rng rng(5);
  for (int repeat = 0; repeat < 10; ++repeat) {
    for (const BatchCost& b : batches()) {
      const double slow = rng.uniform() < 0.2 ? 1.5 : 1.0;
      samples.push_back({b, static_cast<double>(fitted_step_time_ns(truth(), b)) * slow});
    }
  }
  const StepLogFit kept = fit_step_log(samples, true);
  ASSERT_TRUE(kept.noise.has_value());
  EXPECT_EQ(kept.fit.model.per_token_ns, fit_step_model(samples).model.per_token_ns);
  EXPECT_EQ(kept.noise->ratios, step_noise_of_fit(kept.fit, samples).ratios);
  const StepLogFit total = fit_step_log(samples, false);
  EXPECT_FALSE(total.noise.has_value());
  EXPECT_EQ(total.fit.model.per_token_ns, fit_step_model_to_total(samples).model.per_token_ns);
  EXPECT_GT(total.fit.model.per_token_ns, kept.fit.model.per_token_ns);  // the slow fifth's share
  EXPECT_THROW(fit_step_log({samples[0]}, true), std::invalid_argument);
}

TEST(StepFit, TooFewStepsOrANonPositiveTimeAreRefused) {
  std::vector<StepSample> samples = priced(truth(), 0, 1);
  samples.resize(5);
  EXPECT_THROW(fit_step_model(samples), std::invalid_argument);
  samples = priced(truth(), 0, 1);
  samples[3].ns = 0;
  EXPECT_THROW(fit_step_model(samples), std::invalid_argument);
}

}  // namespace
}  // namespace llm
