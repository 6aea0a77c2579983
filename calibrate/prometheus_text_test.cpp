// Reading /metrics text: totals over label sets, and an info metric's labels.
#include "calibrate/prometheus_text.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

constexpr const char* kText = R"(# HELP vllm:request_prefill_time_seconds Histogram of prefill time.
# TYPE vllm:request_prefill_time_seconds histogram
vllm:request_prefill_time_seconds_sum{engine="0",model_name="m"} 1.5
vllm:request_prefill_time_seconds_sum{engine="1",model_name="m"} 0.25
vllm:request_prefill_time_seconds_count{engine="0",model_name="m"} 3
vllm:request_prefill_time_seconds_count{engine="1",model_name="m"} 1 1767225600000
vllm:num_requests_running 2
vllm:cache_config_info{block_size="16",cache_dtype="auto",num_gpu_blocks="2048",odd="a\"b,c"} 1.0
)";

TEST(PrometheusText, TotalsSumEveryLabelSetAndIgnoreTimestamps) {
  EXPECT_EQ(metric_total(kText, "vllm:request_prefill_time_seconds_sum"), 1.75);
  EXPECT_EQ(metric_total(kText, "vllm:request_prefill_time_seconds_count"), 4);
  EXPECT_EQ(metric_total(kText, "vllm:num_requests_running"), 2);
  EXPECT_EQ(metric_total(kText, "vllm:request_prefill_time_seconds"), std::nullopt);
  EXPECT_EQ(metric_total("", "x"), std::nullopt);
}

TEST(PrometheusText, AnInfoMetricsLabelsAreRead) {
  const auto labels = metric_labels(kText, "vllm:cache_config_info");
  EXPECT_EQ(labels.at("block_size"), "16");
  EXPECT_EQ(labels.at("num_gpu_blocks"), "2048");
  EXPECT_EQ(labels.at("odd"), "a\"b,c");
  EXPECT_TRUE(metric_labels(kText, "vllm:absent").empty());
}

TEST(PrometheusText, APromptSaltChangesWithTheServersPromptTokensAndTheRun) {
  const std::string before = "vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} 1200\n";
  const std::string after = "vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} 1264\n";
  EXPECT_NE(fresh_prompt_salt(before, 0), fresh_prompt_salt(after, 0));
  EXPECT_NE(fresh_prompt_salt(before, 0), fresh_prompt_salt(before, 1));
  EXPECT_EQ(fresh_prompt_salt(before, 3), fresh_prompt_salt(before, 3));  // a pure function
  EXPECT_NE(fresh_prompt_salt("", 0), fresh_prompt_salt("", 1));
  for (uint64_t run = 0; run < 64; ++run) EXPECT_NE(fresh_prompt_salt("", run), 0u);
}

}  // namespace
}  // namespace llm
