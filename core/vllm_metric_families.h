// vLLM's Prometheus metric families (names, help texts, types), registered once per registry
// and shared by the engines: each EngineMetrics adds its own series (labels model_name and engine)
// to them. The buckets are chosen per series (core/metric_buckets.h): the 1-2-5 ones depend on
// max_model_len.
// Thread-safety: construct once; prometheus-cpp's families are safe to add series to and to
// collect from any thread.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <cstdint>
#include <memory>
#include <mutex>

namespace llm {

class VllmMetricFamilies {
 public:
  VllmMetricFamilies(prometheus::Registry& registry, int64_t max_model_len);

  prometheus::Family<prometheus::Gauge>& running;
  prometheus::Family<prometheus::Gauge>& waiting;
  prometheus::Family<prometheus::Gauge>& waiting_by_reason;
  prometheus::Family<prometheus::Gauge>& sleep_state;
  prometheus::Family<prometheus::Gauge>& kv_usage;
  prometheus::Family<prometheus::Gauge>& cache_config;
  prometheus::Family<prometheus::Counter>& preemptions;
  prometheus::Family<prometheus::Counter>& prefix_queries;
  prometheus::Family<prometheus::Counter>& prefix_hits;
  prometheus::Family<prometheus::Counter>& external_prefix_queries;
  prometheus::Family<prometheus::Counter>& external_prefix_hits;
  prometheus::Family<prometheus::Counter>& prompt_tokens;
  prometheus::Family<prometheus::Counter>& prompt_tokens_by_source;
  prometheus::Family<prometheus::Counter>& prompt_tokens_cached;
  prometheus::Family<prometheus::Counter>& prompt_tokens_recomputed;
  prometheus::Family<prometheus::Counter>& mm_cache_queries;
  prometheus::Family<prometheus::Counter>& mm_cache_hits;
  prometheus::Family<prometheus::Counter>& generation_tokens;
  prometheus::Family<prometheus::Counter>& request_success;
  prometheus::Family<prometheus::Histogram>& ttft;
  prometheus::Family<prometheus::Histogram>& itl;
  prometheus::Family<prometheus::Histogram>& tpot;
  prometheus::Family<prometheus::Histogram>& e2e;
  prometheus::Family<prometheus::Histogram>& queue;
  prometheus::Family<prometheus::Histogram>& prefill;
  prometheus::Family<prometheus::Histogram>& decode;
  prometheus::Family<prometheus::Histogram>& inference;
  prometheus::Family<prometheus::Histogram>& prompt_len;
  prometheus::Family<prometheus::Histogram>& generation_len;
  prometheus::Family<prometheus::Histogram>& max_generation_len;
  prometheus::Family<prometheus::Histogram>& params_max_tokens;
  prometheus::Family<prometheus::Histogram>& params_n;
  prometheus::Family<prometheus::Histogram>& prefill_kv_computed;
  prometheus::Family<prometheus::Histogram>& num_preemptions_per_request;
  prometheus::Family<prometheus::Histogram>& iteration_tokens;
  const int64_t max_model_len;

  // vllm:kv_block_{lifetime,idle_before_evict,reuse_gap}_seconds: registered on first use, by an
  // engine with --kv-cache-metrics (vLLM registers them only then). Safe from several threads.
  struct KvResidencyFamilies {
    prometheus::Family<prometheus::Histogram>& lifetime;
    prometheus::Family<prometheus::Histogram>& idle_before_evict;
    prometheus::Family<prometheus::Histogram>& reuse_gap;
  };
  KvResidencyFamilies& kv_residency();

 private:
  prometheus::Registry& registry_;
  std::once_flag kv_residency_once_;
  std::unique_ptr<KvResidencyFamilies> kv_residency_;
};

}  // namespace llm
