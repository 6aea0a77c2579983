// METRICS: vLLM's counters, histograms and gauges of a checked replay against the sums of its
// per-request file.
#include "sim/dst/metrics_tap.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/dst/invariant_check.h"

namespace llm {

MetricsTap::MetricsTap(const ReplayConfig& config, const std::vector<EngineChecker*>& checkers)
    : families(registry, config.scheduler.max_model_len) {
  const CacheConfigInfo cache = cache_config_info(config.scheduler, "auto", 0.92);
  for (size_t i = 0; i < checkers.size(); ++i) {
    metrics.push_back(std::make_unique<EngineMetrics>(families, "dst", static_cast<int>(i), cache));
    tees.push_back(std::make_unique<ObserverTee>(
        std::vector<EngineObserver*>{checkers[i], &report, metrics.back().get()}));
  }
}

// Sums of the per-request file.
struct FileSums {
  std::map<std::string, int64_t> reasons;
  int64_t lines = 0, prompt = 0, prompt_with_token = 0, completion = 0, preemptions = 0;
  int64_t admitted_prompt = 0, cached = 0, with_token = 0, multi_token = 0, later_tokens = 0;
  int64_t scheduled = 0;
  int64_t observed = 0;  // lines of requests the engine metrics observe (all but rejected ones)
  int64_t cached_with_token = 0;  // prompt tokens found cached, of requests that made a token
  int64_t computed = 0;           // prompt minus cached tokens, every observed request
  bool aborts = false;            // some request was aborted (its preemptions may go unreported)
};

namespace {

FileSums sum_file(const std::string& jsonl) {
  FileSums s;
  std::istringstream in(jsonl);
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    const int64_t c = j.at("completion_tokens").get<int64_t>();
    const int64_t p = j.at("prompt_tokens").get<int64_t>();
    const bool scheduled = !j.at("queue_time_ms").is_null();
    ++s.lines;
    const std::string reason = j.at("finish_reason").get<std::string>();
    ++s.reasons[reason];
    if (reason == "rejected") continue;  // vLLM's frontend refuses it: in no engine metric
    ++s.observed;
    s.prompt += p;
    s.completion += c;
    s.preemptions += j.at("num_preemptions").get<int64_t>();
    s.aborts = s.aborts || reason == "abort";
    s.prompt_with_token += c > 0 ? p : 0;
    s.admitted_prompt += scheduled ? p : 0;
    const int64_t cached = j.at("cached_tokens").get<int64_t>();
    s.cached += cached;
    s.cached_with_token += c > 0 ? cached : 0;
    s.computed += p - cached;
    s.scheduled += scheduled ? 1 : 0;
    s.with_token += c > 0 ? 1 : 0;
    s.multi_token += c > 1 ? 1 : 0;
    s.later_tokens += std::max<int64_t>(c - 1, 0);
  }
  return s;
}

// A family's value summed over its series: counters' and gauges' values, or histograms' sample
// counts (or sums). `label`/`value` select series (empty: all).
double family_total(prometheus::Collectable& family, bool histogram_sum = false,
                    const std::string& label = "", const std::string& value = "") {
  double total = 0;
  for (const prometheus::MetricFamily& f : family.Collect()) {
    for (const prometheus::ClientMetric& m : f.metric) {
      const bool selected =
          label.empty() || std::any_of(m.label.begin(), m.label.end(), [&](const auto& l) {
            return l.name == label && l.value == value;
          });
      if (!selected) continue;
      if (f.type == prometheus::MetricType::Histogram) {
        total +=
            histogram_sum ? m.histogram.sample_sum : static_cast<double>(m.histogram.sample_count);
      } else if (f.type == prometheus::MetricType::Gauge) {
        total += m.gauge.value;
      } else {
        total += m.counter.value;
      }
    }
  }
  return total;
}

void expect(const char* what, double metric, int64_t file) {
  require_invariant(metric == static_cast<double>(file), "METRICS", [&] {
    return cat(what, " is ", metric, " in the metrics, ", file, " in the per-request file");
  });
}

}  // namespace

void MetricsTap::check_end(size_t sequences, bool caching) {
  const FileSums s = sum_file(jsonl.str());
  require_invariant(s.lines == static_cast<int64_t>(sequences), "METRICS", [&] {
    return cat("the per-request file has ", s.lines, " lines for ", sequences, " sequences");
  });
  check(s, caching);
}

void MetricsTap::check(const FileSums& s, bool caching) {
  for (auto& m : metrics) m->flush();
  VllmMetricFamilies& f = families;
  for (const char* reason : {"stop", "length", "abort", "error"}) {
    expect(reason, family_total(f.request_success, false, "finished_reason", reason),
           s.reasons.count(reason) ? s.reasons.at(reason) : 0);
  }
  check_histograms(s);
  // At the end every engine is idle, and its gauges say so.
  expect("num_requests_running", family_total(f.running), 0);
  expect("num_requests_waiting", family_total(f.waiting), 0);
  expect("kv_cache_usage_perc", family_total(f.kv_usage), 0);
  expect("generation_tokens_total", family_total(f.generation_tokens), s.completion);
  // By source: what was not found cached was computed, and the two add up to the prompts.
  expect("prompt_tokens_by_source_total", family_total(f.prompt_tokens_by_source),
         s.prompt_with_token);
  expect("prompt_tokens_by_source_total{source=\"local_cache_hit\"}",
         family_total(f.prompt_tokens_by_source, false, "source", "local_cache_hit"),
         s.cached_with_token);
  expect("prompt_tokens_cached_total", family_total(f.prompt_tokens_cached), s.cached_with_token);
  // Each step with outputs adds its tokens and the computed prompts whose prefill ended in it.
  expect("iteration_tokens_total_sum", family_total(f.iteration_tokens, true),
         s.prompt_with_token - s.cached_with_token + s.completion);
  expect("prompt_tokens_total", family_total(f.prompt_tokens), s.prompt_with_token);
  // Counted when a preempted request next reports output: a request aborted while preempted
  // reports none, so with aborts the counter may fall short of the per-request sum.
  if (s.aborts) {
    require_invariant(
        family_total(f.preemptions) <= static_cast<double>(s.preemptions), "METRICS", [&] {
          return cat("num_preemptions_total is ", family_total(f.preemptions), ", above the ",
                     s.preemptions, " preemptions of the per-request file");
        });
  } else {
    expect("num_preemptions_total", family_total(f.preemptions), s.preemptions);
  }
  expect("prefix_cache_queries_total", family_total(f.prefix_queries),
         caching ? s.admitted_prompt : 0);
  expect("prefix_cache_hits_total", family_total(f.prefix_hits), caching ? s.cached : 0);
}

void MetricsTap::check_histograms(const FileSums& s) {
  VllmMetricFamilies& f = families;
  expect("time_to_first_token_seconds_count", family_total(f.ttft), s.with_token);
  expect("inter_token_latency_seconds_count", family_total(f.itl), s.later_tokens);
  expect("request_time_per_output_token_seconds_count", family_total(f.tpot), s.with_token);
  expect("e2e_request_latency_seconds_count", family_total(f.e2e), s.with_token);
  expect("request_queue_time_seconds_count", family_total(f.queue), s.scheduled);
  expect("request_prompt_tokens_count", family_total(f.prompt_len), s.observed);
  expect("request_prefill_kv_computed_tokens_sum", family_total(f.prefill_kv_computed, true),
         s.computed);
  expect("request_num_preemptions_sum", family_total(f.num_preemptions_per_request, true),
         s.preemptions);
  expect("request_num_preemptions_count", family_total(f.num_preemptions_per_request), s.observed);
  expect("request_prompt_tokens_sum", family_total(f.prompt_len, true), s.prompt);
  expect("request_generation_tokens_sum", family_total(f.generation_len, true), s.completion);
}

}  // namespace llm
