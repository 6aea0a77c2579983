// The whole llmserve process minus main(): builds the backend (sim: the simulated GPU in scaled
// real time, with SimTokenizer or a real --tokenizer; cpu: a model file's weights and tokenizer),
// the text codec, the metrics registry (vLLM's families and the API server's HTTP metrics, which
// are kept with --disable-log-stats, as vLLM keeps its instrumentator), the engine service, the
// API's context and router, and the HTTP server from ServerOptions, and runs the graceful
// shutdown. Tests create one
// in-process on port 0.
// Thread-safety: construct, start(), shutdown() and destroy from one controlling thread; the
// accessors are safe while it runs.
#pragma once

#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <functional>
#include <memory>
#include <vector>

#include "backends/sim/sim_backend.h"
#include "core/http_metrics.h"
#include "core/vllm_metrics.h"
#include "server/api/api_context.h"
#include "server/api/api_router.h"
#include "server/api/request_log.h"
#include "server/app/server_context.h"
#include "server/app/server_options.h"
#include "server/engine/engine_service.h"
#include "server/engine/scaled_backend.h"
#include "server/engine/step_log_backend.h"
#include "server/faults/fault_handler.h"
#include "server/http/http_server.h"
#include "server/kv_events/kv_event_publisher_set.h"

namespace llm {

struct ModelConfig;
struct ModelWeights;

class LlmServer {
 public:
  // Throws UsageError for a bad configuration (a model or tokenizer that cannot be loaded, a chat
  // template that cannot be chosen), std::runtime_error for an unwritable request log.
  // `wrap` (tests: fault injection) may wrap each engine's backend in a decorator it creates.
  using BackendWrapper = std::function<std::unique_ptr<Backend>(Backend& inner)>;
  explicit LlmServer(const ServerOptions& options, const BackendWrapper& wrap = {});
  ~LlmServer();

  // Listens and serves. Throws std::runtime_error when it cannot listen.
  void start();
  uint16_t port() const { return http_->port(); }
  // With --data-parallel-separate-ports: one port per engine (engine i on port(i)); else 1.
  size_t num_ports() const { return 1 + port_frontends_.size(); }
  uint16_t port(size_t i) const { return i == 0 ? port() : port_frontends_[i - 1]->http->port(); }

  // Graceful stop: /health answers 503 and new generations are refused with 503; in-flight
  // requests may finish for up to --shutdown-timeout seconds, the rest are aborted (their clients
  // get finish_reason "abort"); then the listener, the I/O threads and the engine stop.
  void shutdown();

  // Every engine's Prometheus series as /metrics serves them (with --data-parallel-separate-ports,
  // every front end's together); empty with --disable-log-stats. For the stats lines.
  std::vector<prometheus::MetricFamily> collect_engine_metrics() const;

  ServerContext& context() { return context_; }
  ApiContext& api() { return api_; }  // engine 0's front end's
  EngineService& engine(size_t i = 0) { return *engines_[i]; }
  HttpServer& http() { return *http_; }
  // The test double's state (--failure-rate, --enable-admin-api, ...); null when it is off.
  FaultState* faults() { return fault_state_.get(); }

 private:
  ServerContext context_;
  ApiContext api_;
  prometheus::Registry registry_;
  std::unique_ptr<VllmMetricFamilies> families_;
  std::vector<std::unique_ptr<EngineMetrics>> metrics_;  // one per engine (engine="i")
  std::unique_ptr<AdmissionMetrics> admission_metrics_;  // the server's, without an engine label
  std::unique_ptr<HttpMetrics> http_metrics_;            // the instrumentator's http_* families
  std::unique_ptr<SleepState> sleep_;  // --enable-sleep-mode in dev mode (server/app/sleep_mode.h)
  // Load the model or tokenizer and set up the contexts; return a maker of one engine's backend.
  std::function<Backend*()> setup_sim();
  std::function<Backend*()> setup_cpu();
  std::function<Backend*()> setup_cuda();  // cuda_server_setup.cpp
  // For the model backends (cpu, cuda): the --model weights (UsageError naming the file when they
  // do not load), and the tokenizer and codec that go with them (the model's own, or --tokenizer).
  std::shared_ptr<ModelWeights> load_served_model() const;
  void use_model_tokenizer(const ModelConfig& config);

  std::vector<std::unique_ptr<Backend>> backends_;  // wrappers after what they wrap
  std::vector<int32_t> model_eos_ids_;              // the model config's eos_token_ids (cpu)
  std::unique_ptr<RequestLog> request_log_;
  std::unique_ptr<StepLogFile> step_log_;
  std::unique_ptr<RequestTracer> tracer_;  // outlives the engines: its recorders observe them
  std::vector<std::unique_ptr<ObserverTee>> engine_observers_;  // metrics + trace recorder
  std::vector<std::unique_ptr<EngineService>> engines_;
  std::unique_ptr<ApiRouter> router_;
  // The test double (ServerOptions::test_double()): shared by every front end, each with its
  // FaultHandler in front of its router.
  std::unique_ptr<FaultState> fault_state_;
  std::unique_ptr<FaultHandler> fault_handler_;
  // The handler a front end's HTTP server serves: `router`, behind a FaultHandler (kept in `keep`)
  // when the test double is on.
  HttpHandler& front_handler(ApiRouter& router, std::unique_ptr<FaultHandler>& keep);
  std::unique_ptr<HttpServer> http_;
  // --kv-events-config: started once the port is known; outlives the engines' use of it.
  std::unique_ptr<KvEventPublisherSet> kv_events_;
  void start_kv_events();
  bool stopped_ = false;

  // --data-parallel-separate-ports: engines 1..N-1 each behind a front end of their own (engine 0
  // keeps the members above): its API context (sharing the options, codec and request log), its
  // registry (its engine's series, its admission and HTTP metrics), router and HTTP server.
  struct PortFrontend {
    ApiContext api;
    prometheus::Registry registry;
    std::unique_ptr<VllmMetricFamilies> families;
    std::unique_ptr<AdmissionMetrics> admission_metrics;
    std::unique_ptr<HttpMetrics> http_metrics;
    std::unique_ptr<ApiRouter> router;
    std::unique_ptr<FaultHandler> fault_handler;
    std::unique_ptr<HttpServer> http;
  };
  std::vector<std::unique_ptr<PortFrontend>> port_frontends_;
  // Wires the router and HTTP server of a front end listening on `port`.
  std::unique_ptr<HttpServer> make_http(HttpHandler& handler, HttpMetrics* metrics, int port) const;
  void finish_port_frontend(PortFrontend& frontend, size_t engine);
};

}  // namespace llm
