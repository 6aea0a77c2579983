// llmserve's periodic stats line, as vLLM's LoggingStatLogger prints it every
// VLLM_LOG_STATS_INTERVAL (10) seconds, one line per engine:
//   Engine 000: Avg prompt throughput: 1234.5 tokens/s, Avg generation throughput: 567.8
//   tokens/s, Running: 12 reqs, Waiting: 3 reqs, GPU KV cache usage: 45.6%, Prefix cache hit
//   rate: 78.9%
// (on one line). The figures come from the engines' Prometheus series, the ones /metrics serves,
// so the line cannot disagree with a scrape: the throughputs are the increase of
// vllm:prompt_tokens and vllm:generation_tokens over the interval; Running, Waiting and the KV
// usage are the gauges; the hit rate is vllm:prefix_cache_hits over vllm:prefix_cache_queries
// across the most recent intervals that together finished about 1000 requests (vLLM's window is
// its last 1000 requests). As vLLM does, an engine whose throughputs were zero in this interval
// and the one before prints nothing (an idle server stays quiet).
// StatsLineLogger is the arithmetic (tests feed it samples); PeriodicStatsLogger runs it on a
// thread of its own.
// Thread-safety: StatsLineLogger is single-threaded; PeriodicStatsLogger's start() and stop()
// from one controlling thread.
#pragma once

#include <prometheus/metric_family.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

namespace llm {

// One engine's series at one moment.
struct EngineStatsSample {
  double prompt_tokens = 0;      // vllm:prompt_tokens (counter)
  double generation_tokens = 0;  // vllm:generation_tokens (counter)
  double prefix_queries = 0;     // vllm:prefix_cache_queries (counter)
  double prefix_hits = 0;        // vllm:prefix_cache_hits (counter)
  double finished_requests = 0;  // vllm:request_success, every finished_reason (counter)
  double running = 0;            // vllm:num_requests_running
  double waiting = 0;            // vllm:num_requests_waiting
  double kv_cache_usage = 0;     // vllm:kv_cache_usage_perc (0..1)
};

// The samples of every engine in `families`, by the value of their "engine" label ("0", "1", ...).
std::map<int, EngineStatsSample> engine_stats_samples(
    const std::vector<prometheus::MetricFamily>& families);

// vLLM's line for engine `engine` (without a logger's prefix).
std::string format_stats_line(int engine, double prompt_throughput, double generation_throughput,
                              const EngineStatsSample& now, double prefix_cache_hit_rate);

class StatsLineLogger {
 public:
  // The lines for samples taken `now_s` seconds (any steady origin) after the previous call's;
  // the first call only records its samples.
  std::vector<std::string> lines(const std::map<int, EngineStatsSample>& samples, double now_s);

  static constexpr double kHitRateWindowRequests = 1000;  // vLLM's PrefixCachingMetrics

 private:
  struct Interval {
    double requests, queries, hits;
  };
  struct EngineState {
    EngineStatsSample last;
    double last_prompt_throughput = 0, last_generation_throughput = 0;
    std::deque<Interval> window;  // the most recent intervals' prefix-cache deltas
    double window_requests = 0, window_queries = 0, window_hits = 0;
  };
  std::map<int, EngineState> engines_;
  double last_s_ = 0;
  bool started_ = false;
};

class PeriodicStatsLogger {
 public:
  using Collect = std::function<std::vector<prometheus::MetricFamily>()>;
  // Every `interval_s` seconds, collects the families and writes each line, prefixed by
  // `prefix` ("llmserve: "), to `out`.
  PeriodicStatsLogger(double interval_s, Collect collect, std::ostream& out, std::string prefix);
  ~PeriodicStatsLogger();  // stops
  PeriodicStatsLogger(const PeriodicStatsLogger&) = delete;
  PeriodicStatsLogger& operator=(const PeriodicStatsLogger&) = delete;

  void start();
  void stop();  // returns once the thread has ended; idempotent

 private:
  void run();

  double interval_s_;
  Collect collect_;
  std::ostream& out_;
  std::string prefix_;
  StatsLineLogger logger_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace llm
