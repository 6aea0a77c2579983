// The series a Prometheus scrape of llmsim's simulated servers holds besides vLLM's engine
// families, for the series exports (--metrics-out, --promtool-series). Each engine is one scrape
// target, job "vllm", instance "engine-N" (a vLLM server with its own API server: replicas behind
// a balancer, or llm-d's endpoints), with:
//   up      what Prometheus writes at each scrape: 1, or 0 while the target is down (engine-down)
//   http_*  its API server's HTTP metrics, core/http_metrics.h as llmserve serves them (same
//           names, labels, buckets), with the scrape's job and instance labels, of the one route
//           the simulated clients call (POST /v1/completions: the instrumentator has no series of
//           a route until its first request)
// Each trace request is one non-streaming POST /v1/completions exchange on the server of its
// engine, counted when its last sequence finishes, with the status its client got: 200 (stop,
// length), 400 (rejected: vLLM's frontend refuses it), 499 (4xx: aborted by its client), 500 (an
// engine error), the worst of its sequences; its duration is arrival to finish; request and
// response sizes are 0 (llmsim has no bodies). A request that an http-5xx fault fails is a 500 of
// duration 0 on the server it was routed to. The vLLM families keep their labels (no job, no
// instance), so that the exports without faults stay as they were but for these families.
// Thread-safety: none; the simulator thread.
#pragma once

#include <prometheus/client_metric.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/engine_observer.h"
#include "core/http_metrics.h"

namespace llm {

class TargetMetrics {
 public:
  explicit TargetMetrics(size_t num_engines);
  ~TargetMetrics();
  TargetMetrics(const TargetMetrics&) = delete;
  TargetMetrics& operator=(const TargetMetrics&) = delete;

  prometheus::Registry& registry() { return registry_; }
  // Observes engine `engine`'s requests (add it to that engine's observers).
  EngineObserver* observer(size_t engine);
  // A request of `engine`'s server answered with `status` without reaching the engine.
  void record_failed(size_t engine, int status);
  // Sets `up` of every target before a scrape: down[i] for engine i (empty: all up).
  void set_up(const std::vector<bool>& down);

  static std::string instance_name(size_t engine);  // "engine-0"
  // The scrape target (engine) of a series: a vLLM series' `engine` label, an http_* series'
  // `instance`; nullopt for `up`, which Prometheus writes whether or not the scrape succeeded.
  static std::optional<size_t> scrape_target(
      const std::string& family, const std::vector<prometheus::ClientMetric::Label>& labels);

 private:
  class Exchanges;
  prometheus::Registry registry_;
  prometheus::Family<prometheus::Gauge>& up_family_;
  std::vector<prometheus::Gauge*> up_;
  std::vector<std::unique_ptr<HttpMetrics>> http_;
  std::vector<std::unique_ptr<Exchanges>> exchanges_;
};

}  // namespace llm
