// vLLM's Prometheus metrics (names, types, labels, buckets and observation rules of vLLM's v1
// engine; docs/metrics.md), fed by the engine's observer events so they cannot disagree with the
// per-request records.
//
// VllmMetricFamilies (core/vllm_metric_families.h) registers the families. EngineMetrics is
// one engine's observer: it keeps its deltas in plain local accumulators (no lock, no map lookup,
// no allocation per token) and pushes them into the registry's metric objects in flush(), which
// the engine thread calls before a scrape can need them (each step in llmserve, at each simulated
// scrape in llmsim). AdmissionMetrics is the API server's vllm:admission_rejections_total, one per
// server.
// Thread-safety: EngineMetrics is engine-thread only; AdmissionMetrics::record() is safe from any
// thread; the registry may be collected concurrently.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/cache_config_info.h"
#include "core/engine_observer.h"
#include "core/local_histogram.h"
#include "core/scheduler_config.h"
#include "core/vllm_metric_families.h"

namespace llm {

// vLLM's finished_reason values, in the order of success_ (repetition is never ours, but its
// series exists, as in vLLM).
inline constexpr int kNumFinishedReasons = 5;
inline constexpr const char* kFinishedReasons[kNumFinishedReasons] = {"stop", "length", "abort",
                                                                      "error", "repetition"};

class EngineMetrics final : public EngineObserver {
 public:
  EngineMetrics(VllmMetricFamilies& families, const std::string& model_name, int engine_index,
                const CacheConfigInfo& cache);

  void on_scheduled(const SchedulerOutput& batch, const Scheduler& scheduler) override;
  void on_token(const Request& request, Nanos time, Nanos itl_ns) override;
  void on_preemptions_reported(const Request& request, int32_t count) override;
  void on_finished(const Request& request) override;
  void on_step(const StepStats& stats) override;
  void on_state(const StepStats& state) override;  // gauges only
  void on_kv_block_residency(const KvResidencyObservations& observations) override;

  // Pushes the accumulated deltas and the latest gauge values into the registry.
  void flush();

 private:
  struct Handle {
    prometheus::Histogram* target;
    LocalHistogram local;
    void observe(double v) { local.observe(v); }
  };
  Handle make(prometheus::Family<prometheus::Histogram>& family, std::vector<double> bounds);
  void observe_parent(const Request& request);

  prometheus::Labels labels_;
  prometheus::Gauge& running_;
  prometheus::Gauge& waiting_;
  prometheus::Gauge& waiting_capacity_;  // num_requests_waiting_by_reason{reason="capacity"}
  prometheus::Gauge& kv_usage_;
  prometheus::Counter& preemptions_;
  prometheus::Counter& prefix_queries_;
  prometheus::Counter& prefix_hits_;
  prometheus::Counter& prompt_tokens_;
  prometheus::Counter& prompt_local_compute_;    // prompt_tokens_by_source{source=...}
  prometheus::Counter& prompt_local_cache_hit_;  // (external_kv_transfer stays 0)
  prometheus::Counter& prompt_tokens_cached_;
  prometheus::Counter& prompt_tokens_recomputed_;
  prometheus::Counter& generation_tokens_;
  std::array<prometheus::Counter*, kNumFinishedReasons> success_;  // kFinishedReasons' order
  Handle ttft_, itl_, tpot_, e2e_, queue_, prefill_, decode_, inference_;
  Handle prompt_len_, generation_len_, max_generation_len_, params_max_tokens_, params_n_;
  Handle prefill_kv_computed_, num_preemptions_, iteration_tokens_;
  // With --kv-cache-metrics (CacheConfigInfo::kv_cache_metrics): lifetime, idle, reuse gap.
  std::optional<Handle> kv_lifetime_, kv_idle_, kv_reuse_gap_;

  // Pending deltas and latest gauges (engine thread).
  int64_t d_preemptions_ = 0, d_prompt_tokens_ = 0, d_generation_tokens_ = 0;
  int64_t d_prompt_computed_ = 0, d_prompt_cache_hit_ = 0, d_prompt_cached_ = 0;
  int64_t d_prompt_recomputed_ = 0;
  std::array<int64_t, kNumFinishedReasons> d_success_{};
  // The step being applied: whether it returned an output, and its iteration_tokens value.
  bool step_has_output_ = false;
  int64_t step_tokens_ = 0;
  int64_t seen_queries_ = 0, seen_hits_ = 0;  // cumulative KV counters already flushed
  int64_t last_queries_ = 0, last_hits_ = 0;  // cumulative KV counters last seen
  int64_t num_running_ = 0, num_waiting_ = 0;
  double kv_usage_value_ = 0;
  // Parents with n > 1 whose children have not all finished: remaining children, max outputs.
  struct ParentProgress {
    int32_t remaining;
    int64_t max_outputs;
  };
  std::unordered_map<std::string, ParentProgress> parents_;
};

// Why the API server refused a request at admission: vLLM names the reason after the cap that
// fired (--max-num-queued-reqs, --max-num-queued-tokens; core/admission_rule.h). llmserve's own
// --max-waiting-requests caps queued requests too, so it counts as kMaxNumQueuedReqs.
enum class AdmissionRejection { kMaxNumQueuedReqs = 0, kMaxNumQueuedTokens = 1 };
inline constexpr int kNumAdmissionRejections = 2;
const char* admission_rejection_reason(AdmissionRejection reason);  // the label value

// vllm:admission_rejections_total{model_name, reason}: requests refused (HTTP 503) before they
// reached an engine, one per refused client request whatever its n. No engine label: the decision
// is taken before a request is routed, over all data-parallel engines together, as in vLLM. Every
// reason's series exists from the start, at 0.
class AdmissionMetrics {
 public:
  AdmissionMetrics(prometheus::Registry& registry, const std::string& model_name);
  void record(AdmissionRejection reason);
  double value(AdmissionRejection reason) const;

 private:
  prometheus::Family<prometheus::Counter>& family_;
  std::array<prometheus::Counter*, kNumAdmissionRejections> counters_{};
};

}  // namespace llm
