// The fitted step-time model: each term moves the time as its header says, the knees flatten the
// GEMM and LM-head terms below them, and a model that cannot price a step is named as such.
#include "backends/sim/step_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "backends/sim/cost_model.h"

namespace llm {
namespace {

FittedStepModel example_model() {
  FittedStepModel m;
  m.overhead_ns = 1'000'000;    // 1 ms per step
  m.per_sequence_ns = 50'000;   // 50 us per sequence
  m.per_token_ns = 100'000;     // 0.1 ms per token above the knee
  m.token_knee = 64;            // below 64 tokens the GEMMs cost as at 64
  m.per_context_token_ns = 10;  // per cached token read
  m.per_attention_pair_ns = 2;  // per causal pair
  m.per_sample_ns = 200'000;    // LM head per sampled sequence above its knee
  m.sample_knee = 4;
  return m;
}

BatchCost decode(int64_t sequences, int64_t context) {
  BatchCost b;
  for (int64_t i = 0; i < sequences; ++i) b.add(context, 1, true);
  return b;
}

TEST(FittedStepModel, EachTermAddsWhatItsCoefficientSays) {
  const FittedStepModel m = example_model();
  // One decode at context 100: 1 ms + 50 us + 64 * 0.1 ms + 100 * 10 ns + 100.5 * 2 ns + 4 * 0.2
  // ms.
  const double want = 1e6 + 5e4 + 64 * 1e5 + 100 * 10 + 100.5 * 2 + 4 * 2e5;
  EXPECT_EQ(fitted_step_time_ns(m, decode(1, 100)), std::llround(want));
  // Below both knees more sequences add only their own and their context's costs.
  const Nanos two = fitted_step_time_ns(m, decode(2, 100));
  EXPECT_EQ(two - fitted_step_time_ns(m, decode(1, 100)), std::llround(5e4 + 100 * 10 + 100.5 * 2));
  // Above the sample knee each sampled sequence adds its LM-head cost.
  EXPECT_EQ(fitted_step_time_ns(m, decode(6, 0)) - fitted_step_time_ns(m, decode(5, 0)),
            std::llround(5e4 + 2e5 + 0.5 * 2));
}

TEST(FittedStepModel, AStepOfSeveralNewTokensPaysTheMultiTokenCost) {
  FittedStepModel m = example_model();
  m.multi_token_ns = 700'000;
  const FittedStepModel without = example_model();
  // One new token (a batch-1 decode): the matrix-vector path, no extra cost.
  EXPECT_EQ(fitted_step_time_ns(m, decode(1, 100)), fitted_step_time_ns(without, decode(1, 100)));
  // Two or more: every such step pays it once.
  for (int64_t seqs : {2, 3, 16}) {
    EXPECT_EQ(
        fitted_step_time_ns(m, decode(seqs, 100)) - fitted_step_time_ns(without, decode(seqs, 100)),
        700'000)
        << seqs;
  }
  BatchCost prefill;
  prefill.add(0, 2, true);
  EXPECT_EQ(fitted_step_time_ns(m, prefill) - fitted_step_time_ns(without, prefill), 700'000);
  EXPECT_NEAR(static_cast<double>(fitted_step_time_ns(scaled_step_model(m, 2), decode(4, 0))),
              2.0 * static_cast<double>(fitted_step_time_ns(m, decode(4, 0))), 1.0);
  m.multi_token_ns = -1;
  EXPECT_EQ(fitted_model_problem(m), "multi_token_ns: must be a finite number >= 0");
}

TEST(FittedStepModel, ScalingMultipliesEveryStepAndKeepsTheKnees) {
  const FittedStepModel m = example_model();
  const FittedStepModel twice = scaled_step_model(m, 1.5);
  EXPECT_EQ(twice.token_knee, m.token_knee);
  EXPECT_EQ(twice.sample_knee, m.sample_knee);
  BatchCost prefill;
  prefill.add(0, 300, true);
  for (const BatchCost& b : {decode(1, 100), decode(9, 2000), prefill}) {
    EXPECT_NEAR(static_cast<double>(fitted_step_time_ns(twice, b)),
                1.5 * static_cast<double>(fitted_step_time_ns(m, b)), 1.0);
  }
}

TEST(FittedStepModel, APrefillAboveTheKneeCostsPerTokenAndQuadraticAttention) {
  const FittedStepModel m = example_model();
  BatchCost prefill;
  prefill.add(0, 512, true);
  const double want = 1e6 + 5e4 + 512 * 1e5 + 512 * 256.0 * 2 + 4 * 2e5;
  EXPECT_EQ(fitted_step_time_ns(m, prefill), std::llround(want));
  BatchCost chunk;
  chunk.add(512, 512, false);  // a second chunk reads the first's KV and samples nothing
  EXPECT_EQ(fitted_step_time_ns(m, chunk),
            std::llround(1e6 + 5e4 + 512 * 1e5 + 512 * 10 + 512 * 768.0 * 2 + 4 * 2e5));
}

TEST(FittedStepModel, AnEmptyBatchIsFreeAndADeploymentWithAFitUsesIt) {
  const FittedStepModel m = example_model();
  EXPECT_EQ(fitted_step_time_ns(m, BatchCost{}), 0);
  Deployment d;  // no GPU numbers at all: the roofline could not price this
  d.fitted = m;
  EXPECT_EQ(step_time_ns(d, decode(3, 10)), fitted_step_time_ns(m, decode(3, 10)));
  BatchCost negative;
  negative.new_tokens = -1;
  EXPECT_THROW(step_time_ns(d, negative), std::invalid_argument);
}

TEST(FittedStepModel, AModelThatCannotPriceAStepIsNamed) {
  EXPECT_EQ(fitted_model_problem(example_model()), "");
  FittedStepModel m = example_model();
  m.per_token_ns = -1;
  EXPECT_EQ(fitted_model_problem(m), "per_token_ns: must be a finite number >= 0");
  m = example_model();
  m.sample_knee = NAN;
  EXPECT_EQ(fitted_model_problem(m), "sample_knee: must be a finite number >= 0");
  EXPECT_NE(fitted_model_problem(FittedStepModel{}).find("overhead_ns: the model prices"),
            std::string::npos);
}

}  // namespace
}  // namespace llm
