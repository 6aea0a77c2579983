#include "backends/sim/sim_logprobs.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace llm {
namespace {

RC_GTEST_PROP(SimLogprobs, AreValidLogProbabilities, (uint64_t key)) {
  const int64_t vocab = *rc::gen::inRange<int64_t>(1, 300);
  const int32_t token = *rc::gen::inRange<int32_t>(0, static_cast<int32_t>(vocab));
  const int32_t k = *rc::gen::inRange<int32_t>(0, 21);
  const PositionLogprobs p = sim_position_logprobs(key, token, k, vocab);
  RC_ASSERT(p.token == token);
  RC_ASSERT(p.logprob <= 0.0f);
  RC_ASSERT(p.rank >= 1 && p.rank <= std::min<int64_t>(4, vocab));
  RC_ASSERT(p.top.size() == static_cast<size_t>(std::min<int64_t>(k, vocab)));
  std::set<int32_t> ids;
  double mass = std::exp(static_cast<double>(p.logprob));
  for (size_t i = 0; i < p.top.size(); ++i) {
    const TokenLogprob& t = p.top[i];
    RC_ASSERT(t.token >= 0 && t.token < vocab);
    RC_ASSERT(t.logprob <= 0.0f);
    if (i > 0) RC_ASSERT(t.logprob < p.top[i - 1].logprob);  // sorted, most likely first
    ids.insert(t.token);
    if (t.token != token) mass += std::exp(static_cast<double>(t.logprob));
  }
  RC_ASSERT(ids.size() == p.top.size());  // distinct
  RC_ASSERT(mass <= 1.0);
  // The chosen token sits at its rank whenever the list reaches it.
  if (static_cast<int64_t>(p.top.size()) >= p.rank) {
    RC_ASSERT(p.top[static_cast<size_t>(p.rank - 1)].token == token);
    RC_ASSERT(p.top[static_cast<size_t>(p.rank - 1)].logprob == p.logprob);
  }
}

RC_GTEST_PROP(SimLogprobs, AreAFunctionOfTheirInputs, (uint64_t key)) {
  const int32_t token = *rc::gen::inRange<int32_t>(0, 1000);
  const PositionLogprobs a = sim_position_logprobs(key, token, 5, 1000);
  const PositionLogprobs b = sim_position_logprobs(key, token, 5, 1000);
  RC_ASSERT(a.logprob == b.logprob);
  RC_ASSERT(a.rank == b.rank);
  for (size_t i = 0; i < a.top.size(); ++i) {
    RC_ASSERT(a.top[i].token == b.top[i].token);
    RC_ASSERT(a.top[i].logprob == b.top[i].logprob);
  }
}

TEST(SimLogprobs, DifferBetweenPositions) {
  const PositionLogprobs a = sim_position_logprobs(1, 7, 3, 1000);
  const PositionLogprobs b = sim_position_logprobs(2, 7, 3, 1000);
  EXPECT_TRUE(a.logprob != b.logprob || a.top[0].token != b.top[0].token);
}

TEST(SimLogprobs, RefuseATokenOutsideTheVocabulary) {
  EXPECT_THROW(sim_position_logprobs(1, 10, 3, 10), std::invalid_argument);
  EXPECT_THROW(sim_position_logprobs(1, 0, -1, 10), std::invalid_argument);
}

}  // namespace
}  // namespace llm
