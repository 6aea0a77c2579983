#include "core/vllm_metric_families.h"

namespace llm {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

VllmMetricFamilies::VllmMetricFamilies(prometheus::Registry& r, int64_t max_len)
    : running(BuildGauge()
                  .Name("vllm:num_requests_running")
                  .Help("Number of requests in model execution batches.")
                  .Register(r)),
      waiting(BuildGauge()
                  .Name("vllm:num_requests_waiting")
                  .Help("Number of requests waiting to be processed.")
                  .Register(r)),
      waiting_by_reason(BuildGauge()
                            .Name("vllm:num_requests_waiting_by_reason")
                            .Help("Number of waiting requests, by why they wait.")
                            .Register(r)),
      sleep_state(BuildGauge()
                      .Name("vllm:engine_sleep_state")
                      .Help("Engine sleep state, one-hot (awake, weights_offloaded, discard_all).")
                      .Register(r)),
      kv_usage(BuildGauge()
                   .Name("vllm:kv_cache_usage_perc")
                   .Help("KV-cache usage. 1 means 100 percent usage.")
                   .Register(r)),
      cache_config(BuildGauge()
                       .Name("vllm:cache_config_info")
                       .Help("Information of the LLMEngine CacheConfig")
                       .Register(r)),
      preemptions(BuildCounter()
                      .Name("vllm:num_preemptions")
                      .Help("Cumulative number of preemption from the engine.")
                      .Register(r)),
      prefix_queries(BuildCounter()
                         .Name("vllm:prefix_cache_queries")
                         .Help("Prefix cache queries, in terms of number of queried tokens.")
                         .Register(r)),
      prefix_hits(BuildCounter()
                      .Name("vllm:prefix_cache_hits")
                      .Help("Prefix cache hits, in terms of number of cached tokens.")
                      .Register(r)),
      external_prefix_queries(BuildCounter()
                                  .Name("vllm:external_prefix_cache_queries")
                                  .Help("External (KV connector) prefix cache queries, in tokens.")
                                  .Register(r)),
      external_prefix_hits(BuildCounter()
                               .Name("vllm:external_prefix_cache_hits")
                               .Help("External (KV connector) prefix cache hits, in tokens.")
                               .Register(r)),
      prompt_tokens(BuildCounter()
                        .Name("vllm:prompt_tokens")
                        .Help("Number of prefill tokens processed.")
                        .Register(r)),
      prompt_tokens_by_source(BuildCounter()
                                  .Name("vllm:prompt_tokens_by_source")
                                  .Help("Number of prompt tokens, by where their KV came from.")
                                  .Register(r)),
      prompt_tokens_cached(BuildCounter()
                               .Name("vllm:prompt_tokens_cached")
                               .Help("Number of prompt tokens served from a cache.")
                               .Register(r)),
      prompt_tokens_recomputed(
          BuildCounter()
              .Name("vllm:prompt_tokens_recomputed")
              .Help("Number of cached prompt tokens computed again for the forward pass.")
              .Register(r)),
      mm_cache_queries(BuildCounter()
                           .Name("vllm:mm_cache_queries")
                           .Help("Multi-modal cache queries, in items.")
                           .Register(r)),
      mm_cache_hits(BuildCounter()
                        .Name("vllm:mm_cache_hits")
                        .Help("Multi-modal cache hits, in items.")
                        .Register(r)),
      generation_tokens(BuildCounter()
                            .Name("vllm:generation_tokens")
                            .Help("Number of generation tokens processed.")
                            .Register(r)),
      request_success(BuildCounter()
                          .Name("vllm:request_success")
                          .Help("Count of successfully processed requests.")
                          .Register(r)),
      ttft(BuildHistogram()
               .Name("vllm:time_to_first_token_seconds")
               .Help("Histogram of time to first token in seconds.")
               .Register(r)),
      itl(BuildHistogram()
              .Name("vllm:inter_token_latency_seconds")
              .Help("Histogram of inter-token latency in seconds.")
              .Register(r)),
      tpot(BuildHistogram()
               .Name("vllm:request_time_per_output_token_seconds")
               .Help("Histogram of time_per_output_token_seconds per request.")
               .Register(r)),
      e2e(BuildHistogram()
              .Name("vllm:e2e_request_latency_seconds")
              .Help("Histogram of e2e request latency in seconds.")
              .Register(r)),
      queue(BuildHistogram()
                .Name("vllm:request_queue_time_seconds")
                .Help("Histogram of time spent in WAITING phase for request.")
                .Register(r)),
      prefill(BuildHistogram()
                  .Name("vllm:request_prefill_time_seconds")
                  .Help("Histogram of time spent in PREFILL phase for request.")
                  .Register(r)),
      decode(BuildHistogram()
                 .Name("vllm:request_decode_time_seconds")
                 .Help("Histogram of time spent in DECODE phase for request.")
                 .Register(r)),
      inference(BuildHistogram()
                    .Name("vllm:request_inference_time_seconds")
                    .Help("Histogram of time spent in RUNNING phase for request.")
                    .Register(r)),
      prompt_len(BuildHistogram()
                     .Name("vllm:request_prompt_tokens")
                     .Help("Number of prefill tokens processed.")
                     .Register(r)),
      generation_len(BuildHistogram()
                         .Name("vllm:request_generation_tokens")
                         .Help("Number of generation tokens processed.")
                         .Register(r)),
      max_generation_len(BuildHistogram()
                             .Name("vllm:request_max_num_generation_tokens")
                             .Help("Histogram of maximum number of requested generation tokens.")
                             .Register(r)),
      params_max_tokens(BuildHistogram()
                            .Name("vllm:request_params_max_tokens")
                            .Help("Histogram of the max_tokens request parameter.")
                            .Register(r)),
      params_n(BuildHistogram()
                   .Name("vllm:request_params_n")
                   .Help("Histogram of the n request parameter.")
                   .Register(r)),
      prefill_kv_computed(BuildHistogram()
                              .Name("vllm:request_prefill_kv_computed_tokens")
                              .Help("Histogram of prompt tokens computed in prefill (cached ones "
                                    "excluded).")
                              .Register(r)),
      num_preemptions_per_request(BuildHistogram()
                                      .Name("vllm:request_num_preemptions")
                                      .Help("Histogram of the number of preemptions per request.")
                                      .Register(r)),
      iteration_tokens(BuildHistogram()
                           .Name("vllm:iteration_tokens_total")
                           .Help("Histogram of number of tokens per engine_step.")
                           .Register(r)),
      max_model_len(max_len),
      registry_(r) {}

VllmMetricFamilies::KvResidencyFamilies& VllmMetricFamilies::kv_residency() {
  std::call_once(kv_residency_once_, [this] {
    prometheus::Registry& r = registry_;
    kv_residency_ = std::make_unique<KvResidencyFamilies>(KvResidencyFamilies{
        BuildHistogram()
            .Name("vllm:kv_block_lifetime_seconds")
            .Help("Histogram of KV cache block lifetime from allocation to eviction. Sampled "
                  "metrics (controlled by --kv-cache-metrics-sample).")
            .Register(r),
        BuildHistogram()
            .Name("vllm:kv_block_idle_before_evict_seconds")
            .Help("Histogram of idle time before KV cache block eviction. Sampled metrics "
                  "(controlled by --kv-cache-metrics-sample).")
            .Register(r),
        BuildHistogram()
            .Name("vllm:kv_block_reuse_gap_seconds")
            .Help("Histogram of time gaps between consecutive KV cache block accesses. Only the "
                  "most recent accesses are recorded (ring buffer). Sampled metrics (controlled "
                  "by --kv-cache-metrics-sample).")
            .Register(r)});
  });
  return *kv_residency_;
}

}  // namespace llm
