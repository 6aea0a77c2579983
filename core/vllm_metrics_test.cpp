// The Prometheus metrics of a small scripted workload: exact observation rules checked line by
// line, and the whole exposition compared with a reviewed golden file.
#include "core/vllm_metrics.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "core/engine_core.h"
#include "core/exposition.h"
#include "core/observer_tee.h"
#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

constexpr Nanos kStep = 100'000'000;  // 0.1 s per engine step

std::unique_ptr<Request> make(const std::string& id, int64_t prompt, int64_t outputs) {
  auto r = std::make_unique<Request>();
  r->external_id = id;
  r->parent_id = id;
  r->prompt_len = prompt;
  r->scripted_output_len = outputs;
  r->prompt_salt = std::hash<std::string>{}(id);
  return r;
}

// Runs the scripted workload and returns the exposition text.
//  A: prompt 8, stops after 3 tokens (3 steps: TTFT 0.1 s, 2 ITL samples of 0.1 s).
//  B: prompt 4, max_tokens 2 -> length after 2 tokens.
//  C: n = 2, prompt 4, 1 token each (children 0_C and 1_C).
//  E: prompt 64 = max_model_len -> error, never scheduled.
//  W: prompt 4, 1 token; the fifth sequence, it fills max_num_seqs = 5.
//  R: arrives at 0.05 s during step 1, queued at 0.1 s (TTFT counts from 0.05 s).
std::string run_workload() {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 64;
  config.max_num_batched_tokens = 64;
  config.max_num_seqs = 5;
  config.max_model_len = 64;
  SimClock clock;
  testing::ScriptedBackend backend(kStep);
  prometheus::Registry registry;
  VllmMetricFamilies families(registry, config.max_model_len);
  EngineMetrics metrics(families, "test-model", 0, cache_config_info(config, "auto", 0.92));
  EngineCore engine(config, backend, clock, &metrics);

  engine.add_request(make("A", 8, 3));
  auto b = make("B", 4, 9);
  b->params.max_tokens = 2;
  engine.add_request(std::move(b));
  auto c = make("C", 4, 1);
  c->params.n = 2;
  for (auto& child : fan_out(*c)) engine.add_request(std::move(child));
  engine.add_request(make("E", 64, 1));
  engine.add_request(make("W", 4, 1));
  Nanos duration = 0;
  EXPECT_TRUE(engine.begin_step(&duration));  // step 1 at t = 0
  clock.set(kStep);
  engine.end_step(clock.now());
  auto r = make("R", 4, 2);  // admitted at step 2 once W has left
  r->timeline.arrival = kStep / 2;
  engine.add_request(std::move(r));
  while (engine.step()) {
  }
  metrics.flush();
  return serialize_exposition(registry.Collect());
}

bool has_line(const std::string& text, const std::string& line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l == line) return true;
  }
  return false;
}

const std::string kLabels = "engine=\"0\",model_name=\"test-model\"";

TEST(VllmMetrics, ObservationRulesOnAScriptedWorkload) {
  const std::string text = run_workload();
  auto expect = [&text](const std::string& line) {
    EXPECT_TRUE(has_line(text, line)) << "missing line: " << line << "\n" << text;
  };
  // Sequences: A(3 tokens), B(2), 0_C(1), 1_C(1), W(1), R(2) produce tokens; E is refused.
  expect("vllm:generation_tokens_total{" + kLabels + "} 10.0");
  expect("vllm:prompt_tokens_total{" + kLabels + "} 28.0");  // 8 + 4 + 4 + 4 + 4 + 4
  expect("vllm:request_success_total{" + kLabels.substr(0, 11) +
         "finished_reason=\"length\",model_name=\"test-model\"} 1.0");
  // E's prompt does not fit: vLLM's frontend refuses it, so no engine metric counts it.
  expect(
      "vllm:request_success_total{engine=\"0\",finished_reason=\"error\",model_name=\"test-model\"}"
      " 0.0");
  expect(
      "vllm:request_success_total{engine=\"0\",finished_reason=\"repetition\",model_name=\"test-"
      "model\"} 0.0");
  expect(
      "vllm:request_success_total{engine=\"0\",finished_reason=\"abort\",model_name=\"test-model\"}"
      " 0.0");
  expect(
      "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\",model_name=\"test-model\"} "
      "5.0");
  // TTFT: six sequences produced a token; R's counts from its arrival at 0.05 s.
  expect("vllm:time_to_first_token_seconds_count{" + kLabels + "} 6.0");
  expect(
      "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.1\",model_name=\"test-model\"} "
      "5.0");
  expect(
      "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"0.25\",model_name=\"test-model\"} "
      "6.0");
  expect(
      "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"1.0\",model_name=\"test-model\"} "
      "6.0");
  expect(
      "vllm:time_to_first_token_seconds_bucket{engine=\"0\",le=\"2560.0\",model_name=\"test-"
      "model\"} 6.0");
  // ITL: A has 2 later tokens, B 1, R 1.
  expect("vllm:inter_token_latency_seconds_count{" + kLabels + "} 4.0");
  // TPOT for every sequence that produced a token, 0 for the one-token ones (0_C, 1_C, W); e2e
  // too.
  expect("vllm:request_time_per_output_token_seconds_count{" + kLabels + "} 6.0");
  expect(
      "vllm:request_time_per_output_token_seconds_bucket{engine=\"0\",le=\"0.01\",model_name="
      "\"test-"
      "model\"} 3.0");
  expect("vllm:e2e_request_latency_seconds_count{" + kLabels + "} 6.0");
  // A's e2e is exactly 0.3 s, a bucket bound: bounds are inclusive, so all six are <= 0.3.
  expect(
      "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"0.3\",model_name=\"test-model\"} "
      "6.0");
  expect("vllm:request_queue_time_seconds_count{" + kLabels + "} 6.0");
  // n is observed once per parent: five parents (A, B, C, W, R).
  expect("vllm:request_params_n_count{" + kLabels + "} 5.0");
  expect("vllm:request_params_n_bucket{engine=\"0\",le=\"1.0\",model_name=\"test-model\"} 4.0");
  expect("vllm:request_max_num_generation_tokens_count{" + kLabels + "} 5.0");
  expect("vllm:request_prompt_tokens_count{" + kLabels + "} 6.0");
  // Per step with outputs: whole prompts whose prefill ended in it, plus the tokens made.
  // Step 1: A, B, 0_C, 1_C, W (8 + 4 * 4 prompt tokens, 5 tokens) = 29; step 2: A, B, and R's
  // prefill (4 + 3) = 7; step 3: A and R = 2.
  expect("vllm:iteration_tokens_total_count{" + kLabels + "} 3.0");
  expect("vllm:iteration_tokens_total_sum{" + kLabels + "} 38.0");
  // Nothing was cached: every prompt token was computed locally.
  expect("vllm:prompt_tokens_by_source_total{" + kLabels + ",source=\"local_compute\"} 28.0");
  expect("vllm:prompt_tokens_by_source_total{" + kLabels + ",source=\"local_cache_hit\"} 0.0");
  expect("vllm:prompt_tokens_by_source_total{" + kLabels + ",source=\"external_kv_transfer\"} 0.0");
  expect("vllm:prompt_tokens_cached_total{" + kLabels + "} 0.0");
  expect("vllm:prompt_tokens_recomputed_total{" + kLabels + "} 0.0");
  expect("vllm:mm_cache_queries_total{" + kLabels + "} 0.0");
  expect("vllm:mm_cache_hits_total{" + kLabels + "} 0.0");
  expect("vllm:request_prefill_kv_computed_tokens_count{" + kLabels + "} 6.0");
  expect("vllm:request_prefill_kv_computed_tokens_sum{" + kLabels + "} 28.0");
  expect("vllm:request_num_preemptions_count{" + kLabels + "} 6.0");
  expect("vllm:request_num_preemptions_sum{" + kLabels + "} 0.0");
  expect("vllm:external_prefix_cache_queries_total{" + kLabels + "} 0.0");
  expect("vllm:external_prefix_cache_hits_total{" + kLabels + "} 0.0");
  expect("vllm:num_requests_waiting_by_reason{" + kLabels + ",reason=\"capacity\"} 0.0");
  expect("vllm:num_requests_waiting_by_reason{" + kLabels + ",reason=\"deferred\"} 0.0");
  expect("vllm:engine_sleep_state{" + kLabels + ",sleep_state=\"awake\"} 1.0");
  expect("vllm:engine_sleep_state{" + kLabels + ",sleep_state=\"weights_offloaded\"} 0.0");
  expect("vllm:engine_sleep_state{" + kLabels + ",sleep_state=\"discard_all\"} 0.0");
  // 64 blocks of 4 tokens; a 64-token request needs 16 of them.
  expect(
      "vllm:cache_config_info{block_size=\"4\",cache_dtype=\"auto\",enable_prefix_caching=\"True\","
      "engine=\"0\",gpu_memory_utilization=\"0.92\",is_attention_free=\"False\","
      "kv_cache_max_concurrency=\"4.0\",kv_cache_size_tokens=\"256\",num_cpu_blocks=\"None\","
      "num_gpu_blocks=\"64\",num_gpu_blocks_override=\"None\"} 1.0");
  expect("vllm:request_params_max_tokens_count{" + kLabels + "} 1.0");  // only B set it
  // 1-2-5 buckets stop at max_model_len (64): 1 2 5 10 20 50.
  expect(
      "vllm:request_prompt_tokens_bucket{engine=\"0\",le=\"50.0\",model_name=\"test-model\"} 6.0");
  EXPECT_EQ(text.find("le=\"100.0\""), std::string::npos);
  // Gauges read after the last step: all done.
  expect("vllm:num_requests_running{" + kLabels + "} 0.0");
  expect("vllm:kv_cache_usage_perc{" + kLabels + "} 0.0");
  // Removed names never appear.
  for (const char* gone : {"vllm:gpu_cache_usage_perc", "vllm:gpu_prefix_cache",
                           "vllm:time_per_output_token_seconds"}) {
    EXPECT_EQ(text.find(gone), std::string::npos) << gone;
  }
}

TEST(VllmMetrics, ExpositionMatchesTheReviewedGoldenFile) {
  const std::string path = std::string(LLM_SOURCE_DIR) + "/core/testdata/scripted_workload.prom";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing " << path;
  std::stringstream golden;
  golden << in.rdbuf();
  const std::string text = run_workload();
  if (text != golden.str()) {
    std::ofstream(std::string(::testing::TempDir()) + "scripted_workload.actual.prom") << text;
  }
  EXPECT_EQ(text, golden.str()) << "actual exposition written to " << ::testing::TempDir()
                                << "scripted_workload.actual.prom";
}

TEST(VllmMetrics, AbortedWaitingAndPrefillRequestsFollowTheTimingRules) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = 64;
  config.max_num_batched_tokens = 4;  // one chunk of 4 per step
  config.max_model_len = 64;
  SimClock clock;
  testing::ScriptedBackend backend(kStep);
  prometheus::Registry registry;
  VllmMetricFamilies families(registry, config.max_model_len);
  EngineMetrics metrics(families, "m", 0, CacheConfigInfo{});
  EngineCore engine(config, backend, clock, &metrics);
  const uint64_t in_prefill = engine.add_request(make("P", 12, 5));  // needs 3 steps of prefill
  const uint64_t waiting = engine.add_request(make("Q", 4, 5));
  ASSERT_TRUE(engine.step());
  ASSERT_TRUE(engine.abort_request(in_prefill));  // scheduled, no token: only queue time
  ASSERT_TRUE(engine.abort_request(waiting));     // never scheduled: no timing at all
  metrics.flush();
  const std::string text = serialize_exposition(registry.Collect());
  const std::string l = "engine=\"0\",model_name=\"m\"";
  EXPECT_TRUE(has_line(
      text,
      "vllm:request_success_total{engine=\"0\",finished_reason=\"abort\",model_name=\"m\"} 2.0"));
  EXPECT_TRUE(has_line(text, "vllm:request_queue_time_seconds_count{" + l + "} 1.0"));
  EXPECT_TRUE(has_line(text, "vllm:e2e_request_latency_seconds_count{" + l + "} 0.0"));
  EXPECT_TRUE(has_line(text, "vllm:request_prefill_time_seconds_count{" + l + "} 0.0"));
  EXPECT_TRUE(has_line(text, "vllm:time_to_first_token_seconds_count{" + l + "} 0.0"));
  EXPECT_TRUE(has_line(text, "vllm:prompt_tokens_total{" + l + "} 0.0"));
}

// --kv-cache-metrics: the vllm:kv_block_* families exist only with it, with vLLM's buckets, and
// observe what the engine's block pool evicted. 2 usable blocks of 4; A (7 tokens) holds both from
// t = 0; B, added when A has finished, reuses both at t = 0.1 s.
TEST(VllmMetrics, KvBlockResidencyHistogramsOnlyWithKvCacheMetrics) {
  for (bool enabled : {false, true}) {
    SchedulerConfig config;
    config.block_size = 4;
    config.num_gpu_blocks = 3;
    config.max_num_batched_tokens = 64;
    config.max_model_len = 8;
    config.kv_cache_metrics = enabled;
    config.kv_cache_metrics_sample = 1.0;
    ASSERT_EQ(validate(config), "");
    SimClock clock;
    testing::ScriptedBackend backend(kStep);
    prometheus::Registry registry;
    VllmMetricFamilies families(registry, config.max_model_len);
    EngineMetrics metrics(families, "m", 0, cache_config_info(config, "auto", 0.92));
    EngineCore engine(config, backend, clock, &metrics);
    engine.add_request(make("A", 7, 1));
    while (engine.step()) {
    }
    engine.add_request(make("B", 7, 1));
    while (engine.step()) {
    }
    metrics.flush();
    const std::string text = serialize_exposition(registry.Collect());
    const std::string l = "engine=\"0\",model_name=\"m\"";
    if (!enabled) {
      EXPECT_EQ(text.find("vllm:kv_block_"), std::string::npos);
      continue;
    }
    EXPECT_TRUE(has_line(text, "vllm:kv_block_lifetime_seconds_count{" + l + "} 2.0")) << text;
    EXPECT_TRUE(has_line(text, "vllm:kv_block_lifetime_seconds_sum{" + l + "} 0.2"));
    EXPECT_TRUE(has_line(text, "vllm:kv_block_idle_before_evict_seconds_count{" + l + "} 2.0"));
    EXPECT_TRUE(has_line(text, "vllm:kv_block_reuse_gap_seconds_count{" + l + "} 0.0"));
    EXPECT_TRUE(has_line(
        text,
        "vllm:kv_block_lifetime_seconds_bucket{engine=\"0\",le=\"0.1\",model_name=\"m\"} 2.0"));
    EXPECT_TRUE(has_line(
        text,
        "vllm:kv_block_lifetime_seconds_bucket{engine=\"0\",le=\"1800.0\",model_name=\"m\"} 2.0"));
    EXPECT_TRUE(has_line(
        text,
        "vllm:kv_block_lifetime_seconds_bucket{engine=\"0\",le=\"0.05\",model_name=\"m\"} 0.0"));
  }
}

TEST(VllmMetrics, AdmissionRejectionsHaveEveryReasonFromTheStartAndNoEngineLabel) {
  prometheus::Registry registry;
  AdmissionMetrics admission(registry, "m");
  const std::string reqs =
      "vllm:admission_rejections_total{model_name=\"m\",reason=\"max_num_queued_reqs\"}";
  const std::string tokens =
      "vllm:admission_rejections_total{model_name=\"m\",reason=\"max_num_queued_tokens\"}";
  std::string text = serialize_exposition(registry.Collect());
  EXPECT_TRUE(has_line(text, "# TYPE vllm:admission_rejections_total counter")) << text;
  EXPECT_TRUE(has_line(text, reqs + " 0.0")) << text;
  EXPECT_TRUE(has_line(text, tokens + " 0.0")) << text;
  admission.record(AdmissionRejection::kMaxNumQueuedReqs);
  admission.record(AdmissionRejection::kMaxNumQueuedReqs);
  text = serialize_exposition(registry.Collect());
  EXPECT_TRUE(has_line(text, reqs + " 2.0")) << text;
  EXPECT_TRUE(has_line(text, tokens + " 0.0")) << text;
  EXPECT_EQ(admission.value(AdmissionRejection::kMaxNumQueuedReqs), 2.0);
  EXPECT_EQ(text.find("engine="), std::string::npos) << text;
}

}  // namespace
}  // namespace llm
