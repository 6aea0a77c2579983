#include "core/request_metrics.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

Timeline spec_timeline() {
  Timeline t;
  t.arrival = 900'000'000;
  t.queued = 1'000'000'000;
  t.scheduled = 1'500'000'000;
  t.first_token = 2'000'000'000;
  t.last_token = 3'000'000'000;
  t.finished = 3'000'000'000;
  return t;
}

// The contract's test vector: queued 1.0 s, scheduled 1.5 s, first 2.0 s, last 3.0 s, N = 10.
TEST(PerRequestMetrics, SpecTestVector) {
  const PerRequestMetrics m = compute_per_request_metrics(spec_timeline(), 10);
  EXPECT_DOUBLE_EQ(*m.time_to_first_token_ms, 500.0);
  EXPECT_DOUBLE_EQ(*m.generation_time_ms, 1000.0);
  EXPECT_DOUBLE_EQ(*m.queue_time_ms, 500.0);
  EXPECT_NEAR(*m.mean_itl_ms, 111.111111111, 1e-6);
  EXPECT_NEAR(*m.tokens_per_second, 6.666666666, 1e-6);
}

TEST(PerRequestMetrics, SingleTokenHasNoItlAndRateOverTheInferenceInterval) {
  Timeline t = spec_timeline();
  t.last_token = t.first_token;
  const PerRequestMetrics m = compute_per_request_metrics(t, 1);
  EXPECT_FALSE(m.mean_itl_ms.has_value());
  EXPECT_DOUBLE_EQ(*m.tokens_per_second, 2.0);
  EXPECT_DOUBLE_EQ(*m.generation_time_ms, 0.0);
}

struct NullCase {
  const char* name;
  Nanos Timeline::*cleared;
  bool ttft, generation, queue, itl, rate;  // which fields stay known
};

TEST(PerRequestMetrics, NullRulesTable) {
  const NullCase cases[] = {
      {"no scheduled", &Timeline::scheduled, false, true, false, true, false},
      {"no first token", &Timeline::first_token, false, false, true, false, true},
      {"no last token", &Timeline::last_token, true, false, true, false, false},
      {"no queued", &Timeline::queued, true, true, false, true, true},
  };
  for (const NullCase& c : cases) {
    Timeline t = spec_timeline();
    t.*c.cleared = kNoTime;
    const PerRequestMetrics m = compute_per_request_metrics(t, 10);
    EXPECT_EQ(m.time_to_first_token_ms.has_value(), c.ttft) << c.name;
    EXPECT_EQ(m.generation_time_ms.has_value(), c.generation) << c.name;
    EXPECT_EQ(m.queue_time_ms.has_value(), c.queue) << c.name;
    EXPECT_EQ(m.mean_itl_ms.has_value(), c.itl) << c.name;
    EXPECT_EQ(m.tokens_per_second.has_value(), c.rate) << c.name;
  }
}

TEST(PerRequestMetrics, ZeroTokensAfterSchedulingIsZeroRate) {
  Timeline t = spec_timeline();
  t.first_token = t.last_token = kNoTime;
  const PerRequestMetrics m = compute_per_request_metrics(t, 0);
  ASSERT_TRUE(m.tokens_per_second.has_value());
  EXPECT_DOUBLE_EQ(*m.tokens_per_second, 0.0);
}

TEST(PerRequestMetrics, ZeroIntervalGivesNullRate) {
  Timeline t = spec_timeline();
  t.first_token = t.last_token = t.scheduled;
  EXPECT_FALSE(compute_per_request_metrics(t, 1).tokens_per_second.has_value());
}

TEST(RequestIntervals, PrometheusTtftIncludesQueueing) {
  const RequestIntervals iv = compute_intervals(spec_timeline(), 10);
  EXPECT_DOUBLE_EQ(*iv.ttft_s, 1.1);
  EXPECT_DOUBLE_EQ(*iv.queue_s, 0.5);
  EXPECT_DOUBLE_EQ(*iv.prefill_s, 0.5);
  EXPECT_DOUBLE_EQ(*iv.decode_s, 1.0);
  EXPECT_DOUBLE_EQ(*iv.inference_s, 1.5);
  EXPECT_DOUBLE_EQ(*iv.e2e_s, 2.1);
  EXPECT_NEAR(*iv.tpot_s, 1.0 / 9, 1e-12);
  EXPECT_FALSE(compute_intervals(spec_timeline(), 1).tpot_s.has_value());
}

}  // namespace
}  // namespace llm
