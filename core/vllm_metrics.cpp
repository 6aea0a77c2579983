#include "core/vllm_metrics.h"

#include <algorithm>

#include "core/metric_buckets.h"
#include "core/prompt_token_stats.h"
#include "core/request_metrics.h"

namespace llm {

namespace {

using prometheus::BuildCounter;

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

prometheus::Labels with_label(prometheus::Labels labels, const char* name, const char* value) {
  labels[name] = value;
  return labels;
}

}  // namespace

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
      waiting_capacity_(f.waiting_by_reason.Add(with_label(labels_, "reason", "capacity"))),
      kv_usage_(f.kv_usage.Add(labels_)),
      preemptions_(f.preemptions.Add(labels_)),
      prefix_queries_(f.prefix_queries.Add(labels_)),
      prefix_hits_(f.prefix_hits.Add(labels_)),
      prompt_tokens_(f.prompt_tokens.Add(labels_)),
      prompt_local_compute_(
          f.prompt_tokens_by_source.Add(with_label(labels_, "source", "local_compute"))),
      prompt_local_cache_hit_(
          f.prompt_tokens_by_source.Add(with_label(labels_, "source", "local_cache_hit"))),
      prompt_tokens_cached_(f.prompt_tokens_cached.Add(labels_)),
      prompt_tokens_recomputed_(f.prompt_tokens_recomputed.Add(labels_)),
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
      prefill_kv_computed_(make(f.prefill_kv_computed, one_two_five_buckets(f.max_model_len))),
      num_preemptions_(make(f.num_preemptions_per_request, preemption_buckets())),
      iteration_tokens_(make(f.iteration_tokens, iteration_token_buckets())) {
  if (cache.kv_cache_metrics) {
    VllmMetricFamilies::KvResidencyFamilies& kv = f.kv_residency();
    kv_lifetime_.emplace(make(kv.lifetime, kv_block_residency_buckets()));
    kv_idle_.emplace(make(kv.idle_before_evict, kv_block_residency_buckets()));
    kv_reuse_gap_.emplace(make(kv.reuse_gap, kv_block_residency_buckets()));
  }
  for (int i = 0; i < kNumFinishedReasons; ++i) {
    success_[i] =
        &f.request_success.Add(with_label(labels_, "finished_reason", kFinishedReasons[i]));
  }
  // Series that exist from the start and stay as set here: nothing waits for a reason other than
  // capacity (no structured output, KV connector or LoRA limit), the engine never sleeps, and
  // there is no KV connector and no multi-modal input (vLLM registers the mm_cache counters on
  // text-only servers too).
  f.waiting_by_reason.Add(with_label(labels_, "reason", "deferred")).Set(0);
  f.sleep_state.Add(with_label(labels_, "sleep_state", "awake")).Set(1);
  f.sleep_state.Add(with_label(labels_, "sleep_state", "weights_offloaded")).Set(0);
  f.sleep_state.Add(with_label(labels_, "sleep_state", "discard_all")).Set(0);
  f.external_prefix_queries.Add(labels_);
  f.external_prefix_hits.Add(labels_);
  f.mm_cache_queries.Add(labels_);
  f.mm_cache_hits.Add(labels_);
  f.prompt_tokens_by_source.Add(with_label(labels_, "source", "external_kv_transfer"));
  // vLLM's info gauge: the cache settings and the engine, no model_name.
  prometheus::Labels info;
  for (auto& [name, value] : cache_config_labels(cache, engine_index)) info[name] = value;
  f.cache_config.Add(info).Set(1);
}

void EngineMetrics::on_scheduled(const SchedulerOutput&, const Scheduler& scheduler) {
  last_queries_ = scheduler.kv().counters().queries;
  last_hits_ = scheduler.kv().counters().hits;
}

void EngineMetrics::on_token(const Request& r, Nanos time, Nanos itl_ns) {
  ++d_generation_tokens_;
  step_has_output_ = true;
  ++step_tokens_;
  if (itl_ns == kNoTime) {
    // The prefill is over: its prompt is counted once, by where its KV came from, and the step
    // counts the whole prompt, cached tokens included (vLLM's num_prompt_tokens).
    const PromptTokenSplit split = split_prompt_tokens(r.prompt_len, r.num_cached_tokens);
    d_prompt_tokens_ += r.prompt_len;
    d_prompt_computed_ += split.computed;
    d_prompt_cache_hit_ += split.local_cache_hit;
    d_prompt_cached_ += split.cached;
    d_prompt_recomputed_ += split.recomputed;
    step_tokens_ += r.prompt_len;
    ttft_.observe(nanos_to_seconds(time - r.timeline.arrival));
  } else {
    itl_.observe(nanos_to_seconds(itl_ns));
  }
}

void EngineMetrics::on_preemptions_reported(const Request&, int32_t count) {
  d_preemptions_ += count;
}

void EngineMetrics::on_finished(const Request& r) {
  if (refused_at_admission(r)) return;  // the frontend's 400: no engine metric sees it
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
    tpot_.observe(iv.tpot_s.value_or(0.0));  // vLLM observes 0 for a one-token request
  }
  prompt_len_.observe(static_cast<double>(r.prompt_len));
  generation_len_.observe(static_cast<double>(n));
  prefill_kv_computed_.observe(
      static_cast<double>(split_prompt_tokens(r.prompt_len, r.num_cached_tokens).computed));
  num_preemptions_.observe(static_cast<double>(r.timeline.num_preemptions));
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
  // vLLM observes a step only when it returned outputs: the whole prompts of requests whose
  // prefill ended in it plus the tokens generated (a partial prefill chunk alone is not).
  if (step_has_output_) iteration_tokens_.observe(static_cast<double>(step_tokens_));
  step_has_output_ = false;
  step_tokens_ = 0;
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
  waiting_capacity_.Set(static_cast<double>(num_waiting_));
  kv_usage_.Set(kv_usage_value_);
  auto add = [](prometheus::Counter& c, int64_t& delta) {
    if (delta) c.Increment(static_cast<double>(delta));
    delta = 0;
  };
  add(preemptions_, d_preemptions_);
  add(prompt_tokens_, d_prompt_tokens_);
  add(prompt_local_compute_, d_prompt_computed_);
  // The local prefix cache is our only cache: cache hits are all local_cache_hit.
  add(prompt_tokens_cached_, d_prompt_cached_);
  add(prompt_local_cache_hit_, d_prompt_cache_hit_);
  add(prompt_tokens_recomputed_, d_prompt_recomputed_);
  add(generation_tokens_, d_generation_tokens_);
  for (int i = 0; i < kNumFinishedReasons; ++i) add(*success_[i], d_success_[i]);
  int64_t dq = last_queries_ - seen_queries_;
  int64_t dh = last_hits_ - seen_hits_;
  add(prefix_queries_, dq);
  add(prefix_hits_, dh);
  seen_queries_ = last_queries_;
  seen_hits_ = last_hits_;
  for (Handle* h : {&ttft_, &itl_, &tpot_, &e2e_, &queue_, &prefill_, &decode_, &inference_,
                    &prompt_len_, &generation_len_, &max_generation_len_, &params_max_tokens_,
                    &params_n_, &prefill_kv_computed_, &num_preemptions_, &iteration_tokens_}) {
    h->local.flush_into(*h->target);
  }
  for (std::optional<Handle>* h : {&kv_lifetime_, &kv_idle_, &kv_reuse_gap_}) {
    if (*h) (*h)->local.flush_into(*(*h)->target);
  }
}

void EngineMetrics::on_kv_block_residency(const KvResidencyObservations& o) {
  if (!kv_lifetime_) return;
  for (double v : o.lifetime_s) kv_lifetime_->observe(v);
  for (double v : o.idle_s) kv_idle_->observe(v);
  for (double v : o.reuse_gap_s) kv_reuse_gap_->observe(v);
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
