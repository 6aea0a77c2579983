// The count expectations of vLLM's own metrics test (tests/entrypoints/serve/instrumentator/
// test_metrics.py: N sequential requests of the same P prompt tokens, each ending at
// max_tokens = M), checked on EngineMetrics with and without chunked prefill and async
// scheduling, with prompts the prefix cache can and cannot serve, and the preemption rules of
// docs/metrics.md.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "core/engine_core.h"
#include "core/exposition.h"
#include "core/observer_tee.h"
#include "core/testing/scheduler_table.h"
#include "core/testing/scripted_backend.h"
#include "core/vllm_metrics.h"

namespace llm {
namespace {

// The value of the sample printed as `series` (name{labels}), or -1 when it is missing.
double sample(const std::string& text, const std::string& series) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.size() > series.size() && line.compare(0, series.size(), series) == 0 &&
        line[series.size()] == ' ') {
      return std::stod(line.substr(series.size() + 1));
    }
  }
  return -1;
}

const std::string kL = "{engine=\"0\",model_name=\"m\"}";

struct Setup {
  const char* what;
  int64_t max_num_batched_tokens;  // below the prompt: chunked prefill
  bool async_scheduling;
  int kP;          // prompt tokens, the same prompt for every request
  int cached;      // prefix-cache hit of every request after the first (16-token blocks)
  int recomputed;  // vLLM's recomputed last token of each of those requests
};

class VllmMetricsTestCounts : public ::testing::TestWithParam<Setup> {};

TEST_P(VllmMetricsTestCounts, SequentialRequestsGiveVllmsCounts) {
  constexpr int kN = 10, kM = 10;
  const int kP = GetParam().kP;
  const int cached = GetParam().cached, recomputed = GetParam().recomputed;
  SchedulerConfig config;
  config.block_size = 16;
  config.num_gpu_blocks = 64;
  config.max_num_batched_tokens = GetParam().max_num_batched_tokens;
  config.max_model_len = 1024;
  config.async_scheduling = GetParam().async_scheduling;
  SimClock clock;
  testing::ScriptedBackend backend(1'000'000);
  prometheus::Registry registry;
  VllmMetricFamilies families(registry, config.max_model_len);
  EngineMetrics metrics(families, "m", 0, cache_config_info(config, "auto", 0.92));
  EngineCore engine(config, backend, clock, &metrics);
  for (int i = 0; i < kN; ++i) {
    auto r = testing::make("r" + std::to_string(i), kP, 100, 1);  // the same prompt each time
    r->params.max_tokens = kM;
    engine.add_request(std::move(r));
    while (engine.step()) {
    }
  }
  metrics.flush();
  const std::string text = serialize_exposition(registry.Collect());
  struct Want {
    std::string series;
    int64_t value;
  };
  const Want wants[] = {
      {"vllm:time_to_first_token_seconds_count", kN},
      {"vllm:inter_token_latency_seconds_count", kN * (kM - 1)},
      {"vllm:e2e_request_latency_seconds_count", kN},
      {"vllm:request_queue_time_seconds_count", kN},
      {"vllm:request_inference_time_seconds_count", kN},
      {"vllm:request_prefill_time_seconds_count", kN},
      {"vllm:request_decode_time_seconds_count", kN},
      {"vllm:request_num_preemptions_count", kN},
      {"vllm:request_prompt_tokens_sum", kN * kP},
      {"vllm:request_prompt_tokens_count", kN},
      {"vllm:request_generation_tokens_sum", kN * kM},
      {"vllm:request_generation_tokens_count", kN},
      {"vllm:request_params_n_count", kN},
      {"vllm:request_params_max_tokens_sum", kN * kM},
      {"vllm:request_params_max_tokens_count", kN},
      {"vllm:iteration_tokens_total_sum", kN * (kP + kM)},
      {"vllm:iteration_tokens_total_count", kN * kM},
      {"vllm:prompt_tokens_total", kN * kP},
      {"vllm:generation_tokens_total", kN * kM},
      // Where the prompts' KV came from (vLLM's PromptTokenStats): the first request computes
      // its prompt, the others find `cached` tokens and compute the rest.
      {"vllm:prompt_tokens_cached_total", (kN - 1) * cached},
      {"vllm:prompt_tokens_recomputed_total", (kN - 1) * recomputed},
      {"vllm:request_prefill_kv_computed_tokens_sum", kN * kP - (kN - 1) * cached},
      {"vllm:mm_cache_queries_total", 0},
      {"vllm:mm_cache_hits_total", 0},
  };
  for (const Want& w : wants) {
    EXPECT_EQ(sample(text, w.series + kL), w.value) << GetParam().what << ": " << w.series;
  }
  double successes = 0;
  for (const char* reason : kFinishedReasons) {
    successes += sample(text, "vllm:request_success_total{engine=\"0\",finished_reason=\"" +
                                  std::string(reason) + "\",model_name=\"m\"}");
  }
  EXPECT_EQ(successes, kN) << GetParam().what;
  // The sources sum to the prompts plus the recomputed tokens.
  double by_source = 0;
  for (const char* source : {"external_kv_transfer", "local_cache_hit", "local_compute"}) {
    by_source += sample(text,
                        "vllm:prompt_tokens_by_source_total{engine=\"0\",model_name=\"m\","
                        "source=\"" +
                            std::string(source) + "\"}");
  }
  EXPECT_EQ(by_source, kN * kP + (kN - 1) * recomputed) << GetParam().what;
}

// 11 tokens fill no block: nothing is cached. 40 tokens: two blocks (32 tokens) are found.
// 33 tokens: the two blocks are all of the prompt but its last token, which vLLM counts as
// recomputed.
INSTANTIATE_TEST_SUITE_P(
    Engines, VllmMetricsTestCounts,
    ::testing::Values(Setup{"whole prefill", 2048, false, 11, 0, 0},
                      Setup{"chunked prefill", 4, false, 11, 0, 0},
                      Setup{"async scheduling", 2048, true, 11, 0, 0},
                      Setup{"chunked and async", 4, true, 11, 0, 0},
                      Setup{"prefix cached", 2048, false, 40, 32, 0},
                      Setup{"prefix cached, chunked and async", 4, true, 40, 32, 0},
                      Setup{"all but the last token cached", 2048, false, 33, 32, 1},
                      Setup{"all but the last cached, chunked", 4, true, 33, 32, 1}));

// Two requests that outgrow the cache together: B is preempted while A runs on.
struct PreemptionRun {
  static SchedulerConfig small_cache() {
    SchedulerConfig c;
    c.block_size = 4;
    c.num_gpu_blocks = 6;  // 5 usable: two requests of 4 + 12 tokens need 8
    c.max_num_batched_tokens = 64;
    c.max_model_len = 64;
    return c;
  }

  explicit PreemptionRun(bool abort_while_preempted) {
    tee.add(&metrics);
    tee.add(&recorder);
    engine.add_request(testing::make("A", 4, 12, 1));
    engine.add_request(testing::make("B", 4, 12, 2));
    while (recorder.preempted.empty() && engine.step()) {
    }
    metrics.flush();
    at_preemption = serialize_exposition(registry.Collect());
    if (abort_while_preempted) {
      for (uint64_t id = 0; id < 2; ++id) {
        const Request* r = engine.find_request(id);
        if (r && r->external_id == recorder.preempted.front()) engine.abort_request(id);
      }
    }
    while (engine.step()) {
    }
    metrics.flush();
    at_end = serialize_exposition(registry.Collect());
  }

  SchedulerConfig config = small_cache();
  SimClock clock;
  testing::ScriptedBackend backend;
  prometheus::Registry registry;
  VllmMetricFamilies families{registry, 64};
  EngineMetrics metrics{families, "m", 0, CacheConfigInfo{}};
  testing::Recorder recorder;
  ObserverTee tee;
  EngineCore engine{config, backend, clock, &tee};
  std::string at_preemption, at_end;
};

TEST(VllmMetricsPreemption, CountedWhenThePreemptedRequestNextReportsOutput) {
  PreemptionRun run(false);
  ASSERT_EQ(run.recorder.preempted.size(), 1u) << run.at_end;
  // Not yet at the preemption: the request has not reported an output since.
  EXPECT_EQ(sample(run.at_preemption, "vllm:num_preemptions_total" + kL), 0);
  EXPECT_EQ(sample(run.at_preemption, "vllm:num_requests_waiting" + kL), 1);
  EXPECT_EQ(sample(run.at_preemption,
                   "vllm:num_requests_waiting_by_reason{engine=\"0\","
                   "model_name=\"m\",reason=\"capacity\"}"),
            1);
  EXPECT_EQ(sample(run.at_preemption,
                   "vllm:num_requests_waiting_by_reason{engine=\"0\","
                   "model_name=\"m\",reason=\"deferred\"}"),
            0);
  // B resumed and produced tokens: its preemption is counted, and its finish observes it.
  EXPECT_EQ(sample(run.at_end, "vllm:num_preemptions_total" + kL), 1);
  EXPECT_EQ(sample(run.at_end, "vllm:request_num_preemptions_sum" + kL), 1);
  EXPECT_EQ(sample(run.at_end, "vllm:request_num_preemptions_count" + kL), 2);
  EXPECT_EQ(sample(run.at_end,
                   "vllm:request_num_preemptions_bucket{engine=\"0\",le=\"1.0\","
                   "model_name=\"m\"}"),
            2);
}

TEST(VllmMetricsPreemption, ARequestAbortedWhilePreemptedAddsNothing) {
  PreemptionRun run(true);
  ASSERT_EQ(run.recorder.preempted.size(), 1u) << run.at_end;
  EXPECT_EQ(run.recorder.finished.at(run.recorder.preempted.front()).reason, FinishReason::kAbort);
  EXPECT_EQ(sample(run.at_end, "vllm:num_preemptions_total" + kL), 0);
  // The finished request still says how often it was preempted.
  EXPECT_EQ(sample(run.at_end, "vllm:request_num_preemptions_sum" + kL), 1);
}

}  // namespace
}  // namespace llm
