#include "server/app/stats_logger.h"

#include <chrono>
#include <cstdio>
#include <string_view>

namespace llm {
namespace {

// The value of `metric`'s counter or gauge, whichever its family's type holds.
double metric_value(const prometheus::MetricFamily& family, const prometheus::ClientMetric& m) {
  return family.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
}

// The engine label's value as a number; -1 without one.
int engine_label(const prometheus::ClientMetric& m) {
  for (const prometheus::ClientMetric::Label& label : m.label) {
    if (label.name == "engine") {
      try {
        return std::stoi(label.value);
      } catch (const std::exception&) {
        return -1;
      }
    }
  }
  return -1;
}

// Where a family's value goes in a sample; null for the families the line does not use.
double EngineStatsSample::*sample_field(std::string_view name) {
  if (name == "vllm:prompt_tokens") return &EngineStatsSample::prompt_tokens;
  if (name == "vllm:generation_tokens") return &EngineStatsSample::generation_tokens;
  if (name == "vllm:prefix_cache_queries") return &EngineStatsSample::prefix_queries;
  if (name == "vllm:prefix_cache_hits") return &EngineStatsSample::prefix_hits;
  if (name == "vllm:request_success") return &EngineStatsSample::finished_requests;
  if (name == "vllm:num_requests_running") return &EngineStatsSample::running;
  if (name == "vllm:num_requests_waiting") return &EngineStatsSample::waiting;
  if (name == "vllm:kv_cache_usage_perc") return &EngineStatsSample::kv_cache_usage;
  return nullptr;
}

}  // namespace

std::map<int, EngineStatsSample> engine_stats_samples(
    const std::vector<prometheus::MetricFamily>& families) {
  std::map<int, EngineStatsSample> samples;
  for (const prometheus::MetricFamily& family : families) {
    double EngineStatsSample::*field = sample_field(family.name);
    if (field == nullptr) continue;
    for (const prometheus::ClientMetric& m : family.metric) {
      const int engine = engine_label(m);
      // request_success has one series per finished_reason: they add up.
      if (engine >= 0) samples[engine].*field += metric_value(family, m);
    }
  }
  return samples;
}

std::string format_stats_line(int engine, double prompt_throughput, double generation_throughput,
                              const EngineStatsSample& now, double prefix_cache_hit_rate) {
  char line[320];
  std::snprintf(line, sizeof line,
                "Engine %03d: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: "
                "%.1f tokens/s, Running: %lld reqs, Waiting: %lld reqs, GPU KV cache usage: "
                "%.1f%%, Prefix cache hit rate: %.1f%%",
                engine, prompt_throughput, generation_throughput,
                static_cast<long long>(now.running), static_cast<long long>(now.waiting),
                now.kv_cache_usage * 100, prefix_cache_hit_rate * 100);
  return line;
}

std::vector<std::string> StatsLineLogger::lines(const std::map<int, EngineStatsSample>& samples,
                                                double now_s) {
  std::vector<std::string> out;
  const double elapsed = now_s - last_s_;
  const bool first = !started_;
  started_ = true;
  last_s_ = now_s;
  for (const auto& [engine, now] : samples) {
    auto [it, added] = engines_.try_emplace(engine);
    EngineState& s = it->second;
    if (first || added) {
      s.last = now;
      continue;
    }
    const auto rate = [elapsed](double delta) { return elapsed > 0 ? delta / elapsed : 0.0; };
    const double prompt = rate(now.prompt_tokens - s.last.prompt_tokens);
    const double generation = rate(now.generation_tokens - s.last.generation_tokens);
    const Interval interval{now.finished_requests - s.last.finished_requests,
                            now.prefix_queries - s.last.prefix_queries,
                            now.prefix_hits - s.last.prefix_hits};
    s.window.push_back(interval);
    s.window_requests += interval.requests;
    s.window_queries += interval.queries;
    s.window_hits += interval.hits;
    while (s.window.size() > 1 && s.window_requests > kHitRateWindowRequests) {
      const Interval& old = s.window.front();
      s.window_requests -= old.requests;
      s.window_queries -= old.queries;
      s.window_hits -= old.hits;
      s.window.pop_front();
    }
    const bool idle = prompt == 0 && generation == 0 && s.last_prompt_throughput == 0 &&
                      s.last_generation_throughput == 0;
    if (!idle) {
      const double hit_rate = s.window_queries > 0 ? s.window_hits / s.window_queries : 0.0;
      out.push_back(format_stats_line(engine, prompt, generation, now, hit_rate));
    }
    s.last = now;
    s.last_prompt_throughput = prompt;
    s.last_generation_throughput = generation;
  }
  return out;
}

PeriodicStatsLogger::PeriodicStatsLogger(double interval_s, Collect collect, std::ostream& out,
                                         std::string prefix)
    : interval_s_(interval_s),
      collect_(std::move(collect)),
      out_(out),
      prefix_(std::move(prefix)) {}

PeriodicStatsLogger::~PeriodicStatsLogger() { stop(); }

void PeriodicStatsLogger::start() {
  thread_ = std::thread([this] { run(); });
}

void PeriodicStatsLogger::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicStatsLogger::run() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point origin = Clock::now();
  const auto interval =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(interval_s_));
  Clock::time_point next = origin;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    const Clock::time_point now = Clock::now();
    const double now_s = std::chrono::duration<double>(now - origin).count();
    lock.unlock();
    const std::vector<std::string> lines = logger_.lines(engine_stats_samples(collect_()), now_s);
    // One write per line: the other threads' log lines (std::cerr) do not cut into it.
    for (const std::string& line : lines) out_ << (prefix_ + line + "\n") << std::flush;
    lock.lock();
    next += interval;
    if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
  }
}

}  // namespace llm
