// The API-server probe's fit: exact on a line, kept non-negative, the response a mean.
#include "calibrate/api_probe.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace llm {
namespace {

TEST(ApiProbeFit, TheHopIsALineInThePromptLengthAndTheResponseAMean) {
  // hop = 0.2 ms + 500 ns per token; responses 1, 2 and 3 ms.
  const std::vector<ApiProbeLength> lengths = {{16, 0.2 + 16 * 500e-6, 1.0},
                                               {256, 0.2 + 256 * 500e-6, 2.0},
                                               {1024, 0.2 + 1024 * 500e-6, 3.0}};
  const ApiServerCosts c = fit_api_costs(lengths);
  EXPECT_NEAR(c.hop_ns, 0.2e6, 1e-3);
  EXPECT_NEAR(c.per_prompt_token_ns, 500, 1e-6);
  EXPECT_NEAR(c.response_ns, 2e6, 1e-3);
  EXPECT_EQ(c.request_ns, 0);  // a multi-threaded front end holds no single process
  EXPECT_EQ(c.per_output_token_ns, 0);
}

// Noise can tilt the line below zero; the figures stay >= 0 (costs cannot be negative).
TEST(ApiProbeFit, FiguresStayNonNegative) {
  const ApiServerCosts falling = fit_api_costs({{16, 0.5, -0.1}, {1024, 0.1, -0.2}});
  EXPECT_EQ(falling.per_prompt_token_ns, 0);
  EXPECT_GT(falling.hop_ns, 0);
  EXPECT_EQ(falling.response_ns, 0);
  const ApiServerCosts one = fit_api_costs({{256, 0.3, 0.7}});
  EXPECT_NEAR(one.hop_ns, 0.3e6, 1e-3);
  EXPECT_EQ(one.per_prompt_token_ns, 0);
  EXPECT_THROW(fit_api_costs({}), std::invalid_argument);
}

}  // namespace
}  // namespace llm
