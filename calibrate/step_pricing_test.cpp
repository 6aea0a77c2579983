// Step pricing: which group a step falls in, and the per-group medians, sums and errors against a
// step model whose prices are easy to compute by hand.
#include "calibrate/step_pricing.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

BatchCost decode_batch(int n, int64_t context_each) {
  BatchCost b;
  for (int i = 0; i < n; ++i) b.add(context_each, 1, true);
  return b;
}

TEST(StepPricing, KindsByShape) {
  BatchCost prefill;
  prefill.add(0, 300, true);
  BatchCost mixed = decode_batch(3, 100);
  mixed.add(0, 64, false);
  const struct {
    BatchCost batch;
    std::string kind;
    std::string context;
  } cases[] = {
      {decode_batch(1, 10), "decode b=1", "decode ctx<256"},
      {decode_batch(2, 300), "decode b=2-4", "decode ctx256-1023"},
      {decode_batch(4, 255), "decode b=2-4", "decode ctx<256"},
      {decode_batch(5, 1024), "decode b=5-8", "decode ctx1024-4095"},
      {decode_batch(16, 4096), "decode b=9-16", "decode ctx4096+"},
      {decode_batch(17, 0), "decode b=17-32", "decode ctx<256"},
      {decode_batch(40, 0), "decode b=33+", "decode ctx<256"},
      {prefill, "prefill", ""},
      {mixed, "mixed", ""},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(step_kind(c.batch), c.kind);
    EXPECT_EQ(decode_context_kind(c.batch), c.context);
  }
}

// A model that prices a step at 1 ms + 1 ms per sequence (knees at 0, other terms 0).
FittedStepModel per_sequence_model() {
  FittedStepModel m;
  m.overhead_ns = 1e6;
  m.per_sequence_ns = 1e6;
  return m;
}

StepRecord step(int64_t engine, BatchCost batch, Nanos execute_ns, Nanos gap_ns) {
  StepRecord r;
  r.engine = engine;
  r.batch = batch;
  r.execute_ns = execute_ns;
  r.gap_ns = gap_ns;
  return r;
}

TEST(StepPricing, GroupsHaveMediansSumsAndErrors) {
  // decode b=1 is priced 2 ms; measured 2, 4 and 3 ms. decode b=2-4 (b=3) is priced 4 ms,
  // measured 5 ms. One step of engine 1 is left out when only engine 0 is asked for.
  const std::vector<StepRecord> steps = {
      step(0, decode_batch(1, 10), 2'000'000, -1),
      step(0, decode_batch(1, 10), 4'000'000, 300'000),
      step(0, decode_batch(1, 10), 3'000'000, 100'000),
      step(0, decode_batch(3, 10), 5'000'000, 20'000'000),  // an idle wait, not host time
      step(1, decode_batch(1, 10), 9'000'000, 200'000),
  };
  const StepPricing p = price_steps(steps, per_sequence_model(), nullptr, 0, 5.0);
  ASSERT_EQ(p.by_kind.size(), 2u);
  const StepGroupPricing& b1 = p.by_kind[0];
  EXPECT_EQ(b1.kind, "decode b=1");
  EXPECT_EQ(b1.steps, 3);
  EXPECT_DOUBLE_EQ(b1.measured_p50_ms, 3);
  EXPECT_DOUBLE_EQ(b1.predicted_p50_ms, 2);
  EXPECT_NEAR(b1.error_p50, 2.0 / 3 - 1, 1e-12);  // errors 0, -0.5, -1/3: median -1/3
  EXPECT_NEAR(b1.measured_total_s, 0.009, 1e-12);
  EXPECT_NEAR(b1.predicted_total_s, 0.006, 1e-12);
  EXPECT_NEAR(b1.total_error(), 6.0 / 9 - 1, 1e-12);
  EXPECT_EQ(p.by_kind[1].kind, "decode b=2-4");
  EXPECT_NEAR(p.by_kind[1].error_p50, 4.0 / 5 - 1, 1e-12);
  EXPECT_EQ(p.all.steps, 4);
  EXPECT_NEAR(p.all.total_error(), 10.0 / 14 - 1, 1e-12);
  // Host time: the 0.3 ms and 0.1 ms gaps (the first step has none, the 20 ms one is idle).
  EXPECT_EQ(p.short_gaps, 2);
  EXPECT_NEAR(p.short_gap_p50_ms, 0.2, 1e-12);
  EXPECT_NEAR(p.short_gap_total_s, 0.0004, 1e-12);
  const std::string text = format_step_pricing(p);
  EXPECT_NE(text.find("decode b=1"), std::string::npos) << text;
  EXPECT_NE(text.find("-33.3%"), std::string::npos) << text;
  EXPECT_NE(text.find("2 gaps, p50 0.200 ms"), std::string::npos) << text;
  // Every engine: engine 1's step joins decode b=1.
  EXPECT_EQ(price_steps(steps, per_sequence_model()).by_kind[0].steps, 4);
}

TEST(StepPricing, ASimulatedStepIsMeasuredByItsModelledTime) {
  StepRecord r = step(0, decode_batch(2, 0), 1000, -1);
  r.modelled_ns = 3'000'000;
  const StepPricing p = price_steps({r}, per_sequence_model());
  EXPECT_NEAR(p.all.measured_p50_ms, 3.001, 1e-9);
  EXPECT_DOUBLE_EQ(p.all.predicted_p50_ms, 3);
}

TEST(StepPricing, WithNoiseEachStepIsPricedAtItsDrawAsAReplayDoes) {
  std::vector<StepRecord> steps;
  for (int i = 0; i < 400; ++i) steps.push_back(step(0, decode_batch(1, 10), 2'000'000, -1));
  const StepTimeNoise noise{{0.1, 0.5, 0.9}, {0.9, 1.0, 1.6}};
  const StepPricing plain = price_steps(steps, per_sequence_model());
  const StepPricing noisy = price_steps(steps, per_sequence_model(), &noise);
  EXPECT_NEAR(plain.all.predicted_total_s, 0.8, 1e-12);
  EXPECT_NEAR(noisy.all.predicted_total_s / plain.all.predicted_total_s, step_noise_mean(noise),
              0.03);
  EXPECT_NEAR(noisy.all.predicted_p50_ms, 2.0, 0.05);
  EXPECT_EQ(price_steps(steps, per_sequence_model(), &noise).all.predicted_total_s,
            noisy.all.predicted_total_s);  // the same draws every time
}

}  // namespace
}  // namespace llm
