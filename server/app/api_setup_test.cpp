// What the API layer is told: every flag it reads reaches ApiOptions, and the served model's
// names, context length, priority scheduling and sampler reach its ModelInfo.
#include "server/app/api_setup.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llm {
namespace {

TEST(ApiSetup, EveryFlagTheApiReadsReachesItsOptions) {
  const ApiOptions off = api_options(parse_server_args({}, nullptr));
  EXPECT_EQ(off.api_key, "");
  EXPECT_EQ(off.metrics_api_key, "");
  EXPECT_FALSE(off.enable_request_id_headers);
  EXPECT_FALSE(off.enable_force_include_usage);
  EXPECT_FALSE(off.enable_per_request_metrics);
  EXPECT_FALSE(off.enable_prompt_tokens_details);
  EXPECT_EQ(off.max_waiting_requests, -1);

  const ApiOptions on = api_options(parse_server_args(
      {"--api-key", "k", "--metrics-api-key", "mk", "--enable-request-id-headers",
       "--enable-force-include-usage", "--enable-per-request-metrics",
       "--enable-prompt-tokens-details", "--max-waiting-requests", "7", "--seed", "42"},
      nullptr));
  EXPECT_EQ(on.api_key, "k");
  EXPECT_EQ(on.metrics_api_key, "mk");
  EXPECT_TRUE(on.enable_request_id_headers);
  EXPECT_TRUE(on.enable_force_include_usage);
  EXPECT_TRUE(on.enable_per_request_metrics);
  EXPECT_TRUE(on.enable_prompt_tokens_details);
  EXPECT_EQ(on.max_waiting_requests, 7);
  EXPECT_EQ(on.seed, 42u);
}

TEST(ApiSetup, TheServedModelAsRequestsSeeIt) {
  const ServerOptions o = parse_server_args({"--served-model-name", "a", "b", "--max-model-len",
                                             "2048", "--scheduling-policy", "priority"},
                                            nullptr);
  const ModelInfo model = served_model_info(o, make_engine_setup(o));
  EXPECT_EQ(model.served_name, "a");
  EXPECT_EQ(model.aliases, (std::vector<std::string>{"b"}));
  EXPECT_EQ(model.max_model_len, 2048);
  EXPECT_TRUE(model.priority_scheduling);
  EXPECT_TRUE(model.full_sampler);
  const ServerOptions fcfs = parse_server_args({}, nullptr);
  EXPECT_FALSE(served_model_info(fcfs, make_engine_setup(fcfs)).priority_scheduling);
  ServerOptions cuda = fcfs;
  cuda.backend = "cuda";  // its sampler has no min_tokens, penalties or min_p yet
  EXPECT_FALSE(served_model_info(cuda, make_engine_setup(fcfs)).full_sampler);
}

}  // namespace
}  // namespace llm
