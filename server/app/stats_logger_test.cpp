// The periodic stats line: vLLM's wording and figures from samples of the engines' series, the
// idle rule, the prefix-cache window, reading the samples from a real registry, and the thread.
#include "server/app/stats_logger.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <thread>

namespace llm {
namespace {

EngineStatsSample sample(double prompt, double generation, double queries, double hits,
                         double finished) {
  EngineStatsSample s;
  s.prompt_tokens = prompt;
  s.generation_tokens = generation;
  s.prefix_queries = queries;
  s.prefix_hits = hits;
  s.finished_requests = finished;
  return s;
}

TEST(StatsLine, VllmsWording) {
  EngineStatsSample now;
  now.running = 12;
  now.waiting = 3;
  now.kv_cache_usage = 0.456;
  EXPECT_EQ(format_stats_line(1, 1234.56, 78.91, now, 0.789),
            "Engine 001: Avg prompt throughput: 1234.6 tokens/s, Avg generation throughput: 78.9 "
            "tokens/s, Running: 12 reqs, Waiting: 3 reqs, GPU KV cache usage: 45.6%, Prefix cache "
            "hit rate: 78.9%");
}

TEST(StatsLine, ThroughputsAreTheCountersIncreaseOverTheInterval) {
  StatsLineLogger logger;
  EXPECT_TRUE(logger.lines({{0, sample(100, 10, 0, 0, 0)}}, 0).empty());  // the first only records
  std::vector<std::string> lines = logger.lines({{0, sample(600, 60, 400, 100, 2)}}, 10);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("Avg prompt throughput: 50.0 tokens/s, Avg generation throughput: "
                          "5.0 tokens/s"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("Prefix cache hit rate: 25.0%"), std::string::npos) << lines[0];
}

TEST(StatsLine, AnIdleEngineIsQuietAfterOneLineOfZeros) {
  StatsLineLogger logger;
  logger.lines({{0, sample(0, 0, 0, 0, 0)}}, 0);
  EXPECT_TRUE(logger.lines({{0, sample(0, 0, 0, 0, 0)}}, 10).empty());     // never busy: quiet
  EXPECT_EQ(logger.lines({{0, sample(10, 10, 0, 0, 1)}}, 20).size(), 1u);  // busy
  // The interval after the last busy one still prints (its zeros), as vLLM does; then quiet.
  EXPECT_EQ(logger.lines({{0, sample(10, 10, 0, 0, 1)}}, 30).size(), 1u);
  EXPECT_TRUE(logger.lines({{0, sample(10, 10, 0, 0, 1)}}, 40).empty());
}

TEST(StatsLine, OneLinePerEngineInEngineOrder) {
  StatsLineLogger logger;
  logger.lines({{0, sample(0, 0, 0, 0, 0)}, {1, sample(0, 0, 0, 0, 0)}}, 0);
  const std::vector<std::string> lines =
      logger.lines({{1, sample(5, 5, 0, 0, 0)}, {0, sample(5, 5, 0, 0, 0)}}, 1);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("Engine 000: ", 0), 0u);
  EXPECT_EQ(lines[1].rfind("Engine 001: ", 0), 0u);
}

TEST(StatsLine, TheHitRateForgetsIntervalsBeyondTheLastThousandRequests) {
  StatsLineLogger logger;
  logger.lines({{0, sample(0, 0, 0, 0, 0)}}, 0);
  // 1000 requests that all hit, then 1000 that all miss: the window then holds only the misses.
  auto hit = logger.lines({{0, sample(1, 1, 1000, 1000, 1000)}}, 1);
  ASSERT_EQ(hit.size(), 1u);
  EXPECT_NE(hit[0].find("Prefix cache hit rate: 100.0%"), std::string::npos) << hit[0];
  auto miss = logger.lines({{0, sample(2, 2, 2000, 1000, 2000)}}, 2);
  ASSERT_EQ(miss.size(), 1u);
  EXPECT_NE(miss[0].find("Prefix cache hit rate: 0.0%"), std::string::npos) << miss[0];
}

// The samples come from the same series as /metrics: a registry with vLLM's families.
TEST(StatsLine, SamplesAreReadFromTheRegistrysSeriesByEngine) {
  prometheus::Registry registry;
  auto& prompt = prometheus::BuildCounter().Name("vllm:prompt_tokens").Register(registry);
  auto& running = prometheus::BuildGauge().Name("vllm:num_requests_running").Register(registry);
  auto& success = prometheus::BuildCounter().Name("vllm:request_success").Register(registry);
  auto& other = prometheus::BuildCounter().Name("vllm:num_preemptions").Register(registry);
  prompt.Add({{"engine", "0"}}).Increment(40);
  prompt.Add({{"engine", "1"}}).Increment(7);
  running.Add({{"engine", "1"}}).Set(3);
  success.Add({{"engine", "0"}, {"finished_reason", "stop"}}).Increment(2);
  success.Add({{"engine", "0"}, {"finished_reason", "length"}}).Increment(5);
  other.Add({{"engine", "0"}}).Increment(9);
  const std::map<int, EngineStatsSample> samples = engine_stats_samples(registry.Collect());
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples.at(0).prompt_tokens, 40);
  EXPECT_EQ(samples.at(1).prompt_tokens, 7);
  EXPECT_EQ(samples.at(1).running, 3);
  EXPECT_EQ(samples.at(0).finished_requests, 7);  // every finished_reason
}

TEST(PeriodicStatsLogger, WritesPrefixedLinesEveryIntervalUntilStopped) {
  prometheus::Registry registry;
  auto& generation = prometheus::BuildCounter().Name("vllm:generation_tokens").Register(registry);
  prometheus::Counter& tokens = generation.Add({{"engine", "0"}});
  std::ostringstream out;
  PeriodicStatsLogger logger(
      0.02,
      [&] {
        tokens.Increment(1);  // busy between every two samples
        return registry.Collect();
      },
      out, "llmserve: ");
  logger.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  logger.stop();
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("llmserve: Engine 000: Avg prompt throughput: 0.0 tokens/s", 0), 0u) << text;
  const size_t lines = std::count(text.begin(), text.end(), '\n');
  EXPECT_GE(lines, 2u) << text;
  logger.stop();  // again: nothing happens
  EXPECT_EQ(out.str(), text);
}

}  // namespace
}  // namespace llm
