#include "backends/cpu/logprobs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace llm {
namespace {

// log-softmax in long double, the reference the float results are held to.
double reference_logprob(const std::vector<float>& logits, size_t i) {
  long double z = 0;
  for (float l : logits) z += std::exp(static_cast<long double>(l));
  return static_cast<double>(static_cast<long double>(logits[i]) - std::log(z));
}

TEST(PositionLogprobs, AreTheLogSoftmaxOfTheRawLogits) {
  const std::vector<float> logits = {2.0f, -1.0f, 0.5f, 3.0f, 0.5f};
  const PositionLogprobs p = position_logprobs(logits, 2, 3);
  EXPECT_EQ(p.token, 2);
  EXPECT_NEAR(p.logprob, reference_logprob(logits, 2), 1e-6);
  // Tokens 3, 0, then 2 and 4 tie: the lower id first.
  ASSERT_EQ(p.top.size(), 3u);
  const int32_t expected_ids[] = {3, 0, 2};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(p.top[i].token, expected_ids[i]);
    EXPECT_NEAR(p.top[i].logprob, reference_logprob(logits, expected_ids[i]), 1e-6);
  }
  double mass = 0;
  for (size_t i = 0; i < logits.size(); ++i) mass += std::exp(reference_logprob(logits, i));
  EXPECT_NEAR(mass, 1.0, 1e-12);
}

TEST(PositionLogprobs, RankCountsTheTokensAtLeastAsLikely) {
  const std::vector<float> logits = {2.0f, -1.0f, 0.5f, 3.0f, 0.5f};
  struct Row {
    int32_t token;
    int64_t rank;
  };
  for (const Row& row : {Row{3, 1}, Row{0, 2}, Row{2, 4}, Row{4, 4}, Row{1, 5}}) {
    EXPECT_EQ(position_logprobs(logits, row.token, 0).rank, row.rank) << "token " << row.token;
  }
}

TEST(PositionLogprobs, KZeroListsNoneAndKPastTheVocabularyListsAll) {
  const std::vector<float> logits = {0.0f, 1.0f};
  EXPECT_TRUE(position_logprobs(logits, 0, 0).top.empty());
  const PositionLogprobs all = position_logprobs(logits, 0, 20);
  ASSERT_EQ(all.top.size(), 2u);
  EXPECT_EQ(all.top[0].token, 1);
  EXPECT_GT(all.top[0].logprob, all.top[1].logprob);
}

TEST(PositionLogprobs, StayFiniteForLargeLogits) {
  const std::vector<float> logits = {1000.0f, 999.0f, -1000.0f};
  const PositionLogprobs p = position_logprobs(logits, 1, 3);
  EXPECT_NEAR(p.logprob, -1.0 - std::log1p(std::exp(-1.0)), 1e-5);
  EXPECT_NEAR(p.top[0].logprob, -std::log1p(std::exp(-1.0)), 1e-5);
  EXPECT_LT(p.top[2].logprob, -1999.0);
}

TEST(PositionLogprobs, RefuseATokenOutsideTheVocabulary) {
  const std::vector<float> logits = {0.0f, 1.0f};
  EXPECT_THROW(position_logprobs(logits, 2, 1), std::invalid_argument);
  EXPECT_THROW(position_logprobs(logits, -1, 1), std::invalid_argument);
  EXPECT_THROW(position_logprobs(logits, 0, -1), std::invalid_argument);
}

}  // namespace
}  // namespace llm
