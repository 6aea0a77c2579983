#include "server/app/server_app.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <thread>

#include "backends/cpu/cpu_backend.h"
#include "backends/model/model_weights.h"
#include "server/app/codec_setup.h"
#include "server/app/model_engine_setup.h"
#include "server/engine/eos_swap_backend.h"
#include "server/text/sim_text_codec.h"
#include "server/text/tokenizer_text_codec.h"
#include "server/tracing/tracing_setup.h"

namespace llm {
namespace {

template <typename Pred>
void wait_until(Pred done, std::chrono::steady_clock::time_point deadline) {
  while (!done() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

LlmServer::LlmServer(const ServerOptions& options, const BackendWrapper& wrap) {
  context_.options = options;
  // One backend per data-parallel engine, all alike.
  const std::function<Backend*()> make_backend =
      options.backend == "cpu" ? setup_cpu() : setup_sim();
  const EngineSetup& setup = context_.setup;
  if (!options.disable_log_stats) {
    families_ = std::make_unique<VllmMetricFamilies>(registry_, setup.scheduler.max_model_len);
    admission_metrics_ = std::make_unique<AdmissionMetrics>(registry_, setup.served_model_name);
  }
  if (!options.request_log.empty()) {
    request_log_ = std::make_unique<RequestLog>(options.request_log, options.request_log_content);
  }
  tracer_ =
      make_request_tracer(options, &registry_, [](const char* name) { return std::getenv(name); });
  for (int32_t i = 0; i < options.data_parallel_size; ++i) {
    Backend* backend = make_backend();
    if (wrap) {
      backends_.push_back(wrap(*backend));
      backend = backends_.back().get();
    }
    EngineMetrics* metrics = nullptr;
    if (families_) {
      metrics_.push_back(
          std::make_unique<EngineMetrics>(*families_, setup.served_model_name, i, setup.cache));
      metrics = metrics_.back().get();
    }
    EngineObserver* observer = metrics;
    EngineTraceRecorder* recorder = nullptr;
    if (tracer_ && !options.collect_detailed_traces.empty()) {
      recorder = tracer_->add_recorder();
      engine_observers_.push_back(std::make_unique<ObserverTee>());
      if (metrics) engine_observers_.back()->add(metrics);
      engine_observers_.back()->add(recorder);
      observer = engine_observers_.back().get();
    }
    engines_.push_back(std::make_unique<EngineService>(setup.scheduler, *backend, observer));
    if (recorder) tracer_->bind(recorder, engines_.back().get());
    context_.engines.add(engines_.back().get(), metrics);
    if (i == 0) {
      // Ids that end a sequence besides the backend's eos (unless ignore_eos): the tokenizer's
      // eot, and its eos where the model's differs.
      const int32_t backend_eos = backend->eos_token_id();
      auto add_stop = [&](int32_t id) {
        auto& ids = context_.extra_stop_token_ids;
        if (id >= 0 && id != backend_eos && std::find(ids.begin(), ids.end(), id) == ids.end()) {
          ids.push_back(id);
        }
      };
      for (int32_t id : context_.codec->extra_stop_token_ids()) add_stop(id);
      add_stop(context_.codec->eos_token_id());
      for (int32_t id : model_eos_ids_) add_stop(id);
    }
  }
  context_.registry = &registry_;
  context_.request_log = request_log_.get();
  context_.admission_metrics = admission_metrics_.get();
  context_.tracer = tracer_.get();
  router_ = std::make_unique<ApiRouter>(context_);
  HttpServerConfig http;
  http.host = options.host;
  http.port = options.port;
  http.threads = options.http_threads;
  http.max_body_bytes = options.max_request_body_bytes;
  http.max_header_bytes = options.max_header_bytes;
  http.read_timeout_s = options.read_timeout_s;
  http.max_connections = options.max_connections;
  http_metrics_ = std::make_unique<HttpMetrics>(registry_);
  http.metrics = http_metrics_.get();
  http_ = std::make_unique<HttpServer>(*router_, http);
}

std::function<Backend*()> LlmServer::setup_sim() {
  const ServerOptions& o = context_.options;
  context_.setup = make_engine_setup(o);
  context_.seed_unseeded_requests = false;
  std::shared_ptr<const Tokenizer> tokenizer;
  if (!o.tokenizer.empty()) tokenizer = load_server_tokenizer(o.tokenizer, "--tokenizer");
  const std::optional<ChatTemplate> chat = resolve_chat_template(o.chat_template, tokenizer.get());
  Deployment& deployment = context_.setup.deployment;
  if (tokenizer) {
    // The simulated model speaks the tokenizer's vocabulary; its eos becomes the tokenizer's.
    deployment.model.vocab = tokenizer->vocab_size();
    context_.codec = std::make_shared<TokenizerTextCodec>(tokenizer, chat);
  } else {
    context_.codec = std::make_shared<SimTextCodec>(deployment.model.vocab, chat);
  }
  const int32_t eos = tokenizer ? tokenizer->eos_id() : -1;
  return [this, eos] {
    const ServerOptions& o = context_.options;
    backends_.push_back(std::make_unique<SimBackend>(context_.setup.deployment, o.seed));
    if (eos >= 0) backends_.push_back(std::make_unique<EosSwapBackend>(*backends_.back(), eos));
    backends_.push_back(std::make_unique<ScaledBackend>(*backends_.back(), o.step_time_scale));
    return backends_.back().get();
  };
}

std::function<Backend*()> LlmServer::setup_cpu() {
  const ServerOptions& o = context_.options;
  const std::string& path = o.engine.model;
  auto weights = std::make_shared<ModelWeights>();
  try {
    *weights = load_model_weights(path);
  } catch (const std::exception& e) {
    throw UsageError("--model " + path + ": cannot load the model: " + e.what());
  }
  context_.setup = make_model_engine_setup(o, weights->config);
  context_.seed_unseeded_requests = true;
  std::shared_ptr<const Tokenizer> tokenizer = load_server_tokenizer(
      o.tokenizer.empty() ? path : o.tokenizer, o.tokenizer.empty() ? "--model" : "--tokenizer");
  if (tokenizer->vocab_size() > weights->config.vocab_size) {
    throw UsageError((o.tokenizer.empty() ? "--model " + path : "--tokenizer " + o.tokenizer) +
                     ": the tokenizer has " + std::to_string(tokenizer->vocab_size()) +
                     " tokens, more than the model's vocab_size " +
                     std::to_string(weights->config.vocab_size));
  }
  context_.codec = std::make_shared<TokenizerTextCodec>(
      tokenizer, resolve_chat_template(o.chat_template, tokenizer.get()));
  model_eos_ids_ = weights->config.eos_token_ids;
  CpuBackendOptions cpu;
  cpu.num_blocks = context_.setup.scheduler.num_gpu_blocks;
  cpu.block_size = context_.setup.scheduler.block_size;
  // The engines of --data-parallel-size share the cores rather than each spinning up all of them.
  const int cores =
      o.cpu_threads > 0 ? o.cpu_threads : static_cast<int>(std::thread::hardware_concurrency());
  cpu.threads = std::max(1, cores / std::max(1, static_cast<int>(o.data_parallel_size)));
  std::shared_ptr<const ModelWeights> shared = std::move(weights);
  return [this, shared, cpu] {
    backends_.push_back(std::make_unique<CpuBackend>(shared, cpu));
    return backends_.back().get();
  };
}

LlmServer::~LlmServer() {
  if (http_) http_->stop();
  // The engines go first: their sinks post into the HTTP server's io_context.
  engines_.clear();
  http_.reset();
}

void LlmServer::start() { http_->start(); }

void LlmServer::shutdown() {
  if (stopped_) return;
  stopped_ = true;
  using clock = std::chrono::steady_clock;
  context_.draining = true;
  http_->begin_drain();
  const auto deadline =
      clock::now() + std::chrono::duration_cast<clock::duration>(
                         std::chrono::duration<double>(context_.options.shutdown_timeout_s));
  EngineSet& engines = context_.engines;
  wait_until([&] { return engines.num_unfinished() == 0; }, deadline);
  if (engines.num_unfinished() > 0) engines.abort_all();
  // Let the sessions write the last frames of what just finished or was aborted.
  wait_until([&] { return engines.num_unfinished() == 0 && http_->active_generations() == 0; },
             clock::now() + std::chrono::seconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  http_->stop();
  engines.stop();
  // The spans of what just finished: exported within a deadline of their own.
  if (tracer_) tracer_->exporter().shutdown(std::chrono::seconds(5));
}

}  // namespace llm
