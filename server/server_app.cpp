#include "server/server_app.h"

#include <chrono>
#include <thread>

namespace llm {
namespace {

template <typename Pred>
void wait_until(Pred done, std::chrono::steady_clock::time_point deadline) {
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

LlmServer::LlmServer(const ServerOptions& options) {
  context_.options = options;
  context_.setup = make_engine_setup(options);
  const EngineSetup& setup = context_.setup;
  context_.tokenizer = SimTokenizer(setup.deployment.model.vocab);
  if (!options.disable_log_stats) {
    families_ = std::make_unique<VllmMetricFamilies>(registry_, setup.scheduler.max_model_len);
    metrics_ = std::make_unique<EngineMetrics>(*families_, setup.served_model_name, 0, setup.cache);
  }
  sim_ = std::make_unique<SimBackend>(setup.deployment, options.seed);
  backend_ = std::make_unique<ScaledBackend>(*sim_, options.step_time_scale);
  if (!options.request_log.empty()) {
    request_log_ = std::make_unique<RequestLog>(options.request_log, options.request_log_content);
  }
  engine_ = std::make_unique<EngineService>(setup.scheduler, *backend_, metrics_.get());
  context_.engine = engine_.get();
  context_.registry = &registry_;
  context_.metrics = metrics_.get();
  context_.request_log = request_log_.get();
  router_ = std::make_unique<ApiRouter>(context_);
  HttpServerConfig http;
  http.host = options.host;
  http.port = options.port;
  http.threads = options.http_threads;
  http.max_body_bytes = options.max_request_body_bytes;
  http.max_header_bytes = options.max_header_bytes;
  http.read_timeout_s = options.read_timeout_s;
  http.max_connections = options.max_connections;
  http_ = std::make_unique<HttpServer>(*router_, http);
}

LlmServer::~LlmServer() {
  if (http_) http_->stop();
  // The engine goes first: its sinks post into the HTTP server's io_context.
  engine_.reset();
  http_.reset();
}

void LlmServer::start() { http_->start(); }

void LlmServer::shutdown() {
  if (stopped_) return;
  stopped_ = true;
  using clock = std::chrono::steady_clock;
  context_.draining = true;
  const auto deadline =
      clock::now() + std::chrono::duration_cast<clock::duration>(
                         std::chrono::duration<double>(context_.options.shutdown_timeout_s));
  wait_until([&] { return engine_->num_unfinished() == 0; }, deadline);
  if (engine_->num_unfinished() > 0) engine_->abort_all();
  // Let the sessions write the last frames of what just finished or was aborted.
  wait_until([&] { return engine_->num_unfinished() == 0 && http_->active_generations() == 0; },
             clock::now() + std::chrono::seconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  http_->stop();
  engine_->stop();
}

}  // namespace llm
