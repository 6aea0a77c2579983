#include "core/vllm_metrics.h"

#include "core/metric_buckets.h"
#include "core/request_metrics.h"

namespace llm {

CacheConfigInfo cache_config_info(const SchedulerConfig& s, std::string cache_dtype,
                                  double gpu_memory_utilization) {
  CacheConfigInfo info;
  info.block_size = s.block_size;
  info.num_gpu_blocks = s.num_gpu_blocks;
  info.cache_dtype = std::move(cache_dtype);
  info.enable_prefix_caching = s.enable_prefix_caching;
  info.gpu_memory_utilization = gpu_memory_utilization;
  return info;
}
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;

constexpr const char* kReasons[4] = {"stop", "length", "abort", "error"};

int reason_index(FinishReason r) {
  switch (r) {
    case FinishReason::kStop:
      return 0;
    case FinishReason::kLength:
      return 1;
    case FinishReason::kAbort:
      return 2;
    default:
      return 3;
  }
}

std::string python_bool(bool b) { return b ? "True" : "False"; }

}  // namespace

VllmMetricFamilies::VllmMetricFamilies(prometheus::Registry& r, int64_t max_len)
    : running(BuildGauge()
                  .Name("vllm:num_requests_running")
                  .Help("Number of requests in model execution batches.")
                  .Register(r)),
      waiting(BuildGauge()
                  .Name("vllm:num_requests_waiting")
                  .Help("Number of requests waiting to be processed.")
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
      prompt_tokens(BuildCounter()
                        .Name("vllm:prompt_tokens")
                        .Help("Number of prefill tokens processed.")
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
      iteration_tokens(BuildHistogram()
                           .Name("vllm:iteration_tokens_total")
                           .Help("Histogram of number of tokens per engine_step.")
                           .Register(r)),
      max_model_len(max_len) {}

EngineMetrics::Handle EngineMetrics::make(prometheus::Family<prometheus::Histogram>& family,
                                          std::vector<double> bounds) {
  prometheus::Histogram& target = family.Add(labels_, bounds);
  return Handle{&target, LocalHistogram(std::move(bounds))};
}

EngineMetrics::EngineMetrics(VllmMetricFamilies& f, const std::string& model_name, int engine_index,
                             const CacheConfigInfo& cache)
    : labels_{{"model_name", model_name}, {"engine", std::to_string(engine_index)}},
      running_(f.running.Add(labels_)),
      waiting_(f.waiting.Add(labels_)),
      kv_usage_(f.kv_usage.Add(labels_)),
      preemptions_(f.preemptions.Add(labels_)),
      prefix_queries_(f.prefix_queries.Add(labels_)),
      prefix_hits_(f.prefix_hits.Add(labels_)),
      prompt_tokens_(f.prompt_tokens.Add(labels_)),
      generation_tokens_(f.generation_tokens.Add(labels_)),
      ttft_(make(f.ttft, ttft_buckets())),
      itl_(make(f.itl, itl_buckets())),
      tpot_(make(f.tpot, itl_buckets())),
      e2e_(make(f.e2e, request_latency_buckets())),
      queue_(make(f.queue, request_latency_buckets())),
      prefill_(make(f.prefill, request_latency_buckets())),
      decode_(make(f.decode, request_latency_buckets())),
      inference_(make(f.inference, request_latency_buckets())),
      prompt_len_(make(f.prompt_len, one_two_five_buckets(f.max_model_len))),
      generation_len_(make(f.generation_len, one_two_five_buckets(f.max_model_len))),
      max_generation_len_(make(f.max_generation_len, one_two_five_buckets(f.max_model_len))),
      params_max_tokens_(make(f.params_max_tokens, one_two_five_buckets(f.max_model_len))),
      params_n_(make(f.params_n, n_buckets())),
      iteration_tokens_(make(f.iteration_tokens, iteration_token_buckets())) {
  for (int i = 0; i < 4; ++i) {
    prometheus::Labels with_reason = labels_;
    with_reason["finished_reason"] = kReasons[i];
    success_[i] = &f.request_success.Add(with_reason);
  }
  prometheus::Labels info = labels_;
  info["block_size"] = std::to_string(cache.block_size);
  info["num_gpu_blocks"] = std::to_string(cache.num_gpu_blocks);
  info["cache_dtype"] = cache.cache_dtype;
  info["enable_prefix_caching"] = python_bool(cache.enable_prefix_caching);
  // Printed as Python prints the float (0.92, not 0.920000).
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", cache.gpu_memory_utilization);
  info["gpu_memory_utilization"] = buf;
  f.cache_config.Add(info).Set(1);
}

void EngineMetrics::on_scheduled(const SchedulerOutput&, const Scheduler& scheduler) {
  last_queries_ = scheduler.kv().counters().queries;
  last_hits_ = scheduler.kv().counters().hits;
}

void EngineMetrics::on_token(const Request& r, Nanos time, Nanos itl_ns) {
  ++d_generation_tokens_;
  if (itl_ns == kNoTime) {
    d_prompt_tokens_ += r.prompt_len;
    ttft_.observe(nanos_to_seconds(time - r.timeline.arrival));
  } else {
    itl_.observe(nanos_to_seconds(itl_ns));
  }
}

void EngineMetrics::on_preempted(const Request&) { ++d_preemptions_; }

void EngineMetrics::on_finished(const Request& r) {
  ++d_success_[reason_index(r.finish_reason)];
  const int64_t n = r.num_output_tokens;
  const RequestIntervals iv = compute_intervals(r.timeline, n);
  if (iv.queue_s) queue_.observe(*iv.queue_s);
  if (r.timeline.first_token != kNoTime) {
    // Timing histograms only for requests that produced a token; a scheduled request that ended
    // before its first token contributes its queue time only.
    e2e_.observe(*iv.e2e_s);
    prefill_.observe(*iv.prefill_s);
    decode_.observe(*iv.decode_s);
    inference_.observe(*iv.inference_s);
    if (iv.tpot_s) tpot_.observe(*iv.tpot_s);
  }
  prompt_len_.observe(static_cast<double>(r.prompt_len));
  generation_len_.observe(static_cast<double>(n));
  if (r.params.max_tokens >= 0)
    params_max_tokens_.observe(static_cast<double>(r.params.max_tokens));
  observe_parent(r);
}

void EngineMetrics::observe_parent(const Request& r) {
  const int32_t n = std::max<int32_t>(r.params.n, 1);
  if (n == 1) {
    params_n_.observe(1);
    max_generation_len_.observe(static_cast<double>(r.num_output_tokens));
    return;
  }
  auto [it, inserted] = parents_.try_emplace(r.parent_id, ParentProgress{n, 0});
  ParentProgress& p = it->second;
  p.max_outputs = std::max(p.max_outputs, r.num_output_tokens);
  if (--p.remaining > 0) return;
  params_n_.observe(static_cast<double>(n));
  max_generation_len_.observe(static_cast<double>(p.max_outputs));
  parents_.erase(it);
}

void EngineMetrics::on_step(const StepStats& s) {
  iteration_tokens_.observe(static_cast<double>(s.scheduled_tokens));
  num_running_ = s.num_running;
  num_waiting_ = s.num_waiting;
  kv_usage_value_ = s.kv_usage;
}

void EngineMetrics::on_state(const StepStats& s) {
  num_running_ = s.num_running;
  num_waiting_ = s.num_waiting;
  kv_usage_value_ = s.kv_usage;
}

void EngineMetrics::flush() {
  running_.Set(static_cast<double>(num_running_));
  waiting_.Set(static_cast<double>(num_waiting_));
  kv_usage_.Set(kv_usage_value_);
  auto add = [](prometheus::Counter& c, int64_t& delta) {
    if (delta) c.Increment(static_cast<double>(delta));
    delta = 0;
  };
  add(preemptions_, d_preemptions_);
  add(prompt_tokens_, d_prompt_tokens_);
  add(generation_tokens_, d_generation_tokens_);
  for (int i = 0; i < 4; ++i) add(*success_[i], d_success_[i]);
  int64_t dq = last_queries_ - seen_queries_;
  int64_t dh = last_hits_ - seen_hits_;
  add(prefix_queries_, dq);
  add(prefix_hits_, dh);
  seen_queries_ = last_queries_;
  seen_hits_ = last_hits_;
  for (Handle* h : {&ttft_, &itl_, &tpot_, &e2e_, &queue_, &prefill_, &decode_, &inference_,
                    &prompt_len_, &generation_len_, &max_generation_len_, &params_max_tokens_,
                    &params_n_, &iteration_tokens_}) {
    h->local.flush_into(*h->target);
  }
}

const char* admission_rejection_reason(AdmissionRejection reason) {
  return reason == AdmissionRejection::kMaxNumQueuedTokens ? "max_num_queued_tokens"
                                                           : "max_num_queued_reqs";
}

AdmissionMetrics::AdmissionMetrics(prometheus::Registry& r, const std::string& model_name)
    : family_(BuildCounter()
                  .Name("vllm:admission_rejections")
                  .Help("Number of requests rejected at admission, by reason.")
                  .Register(r)) {
  for (int i = 0; i < kNumAdmissionRejections; ++i) {
    counters_[static_cast<size_t>(i)] =
        &family_.Add({{"model_name", model_name},
                      {"reason", admission_rejection_reason(static_cast<AdmissionRejection>(i))}});
  }
}

void AdmissionMetrics::record(AdmissionRejection reason) {
  counters_[static_cast<size_t>(reason)]->Increment();
}

double AdmissionMetrics::value(AdmissionRejection reason) const {
  return counters_[static_cast<size_t>(reason)]->Value();
}

}  // namespace llm
