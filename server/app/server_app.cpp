#include "server/app/server_app.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <thread>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/thread_pool.h"
#include "backends/model/model_weights.h"
#include "server/app/api_setup.h"
#include "server/app/codec_setup.h"
#include "server/app/model_engine_setup.h"
#include "server/app/sleep_mode.h"
#include "server/app/tracing_setup.h"
#include "server/engine/eos_swap_backend.h"
#include "server/text/sim_text_codec.h"
#include "server/text/tokenizer_text_codec.h"

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
  if (const char* pod = std::getenv("POD_NAME")) api_.pod_name = pod;
  if (const char* ns = std::getenv("POD_NAMESPACE")) api_.pod_namespace = ns;
  // One backend per data-parallel engine, all alike.
  const std::function<Backend*()> make_backend = options.backend == "cpu"    ? setup_cpu()
                                                 : options.backend == "cuda" ? setup_cuda()
                                                                             : setup_sim();
  const EngineSetup& setup = context_.setup;
  api_.options = api_options(options);
  api_.model = served_model_info(options, setup);
  api_.model_root = setup.model_root;
  if (!options.disable_log_stats) {
    families_ = std::make_unique<VllmMetricFamilies>(registry_, setup.scheduler.max_model_len);
    admission_metrics_ = std::make_unique<AdmissionMetrics>(registry_, setup.served_model_name);
  }
  if (!options.request_log.empty()) {
    request_log_ = std::make_unique<RequestLog>(options.request_log, options.request_log_content);
  }
  if (!options.step_log.empty()) {
    try {
      step_log_ = std::make_unique<StepLogFile>(options.step_log);
    } catch (const std::exception& e) {
      throw UsageError(std::string("--step-log: ") + e.what());
    }
  }
  tracer_ =
      make_request_tracer(options, &registry_, [](const char* name) { return std::getenv(name); });
  std::vector<prometheus::Family<prometheus::Gauge>*> sleep_families;  // engine i's, for sleep_
  for (int32_t i = 0; i < options.data_parallel_size; ++i) {
    Backend* backend = make_backend();
    if (wrap) {
      backends_.push_back(wrap(*backend));
      backend = backends_.back().get();
    }
    if (step_log_) {
      backends_.push_back(std::make_unique<StepLogBackend>(*backend, *step_log_, i));
      backend = backends_.back().get();
    }
    // With separate ports, engines past the first get a front end (and registry) of their own.
    PortFrontend* own = nullptr;
    if (options.data_parallel_separate_ports && i > 0) {
      port_frontends_.push_back(std::make_unique<PortFrontend>());
      own = port_frontends_.back().get();
      if (!options.disable_log_stats) {
        own->families =
            std::make_unique<VllmMetricFamilies>(own->registry, setup.scheduler.max_model_len);
      }
    }
    VllmMetricFamilies* families = own ? own->families.get() : families_.get();
    sleep_families.push_back(families ? &families->sleep_state : nullptr);
    EngineMetrics* metrics = nullptr;
    if (families) {
      metrics_.push_back(
          std::make_unique<EngineMetrics>(*families, setup.served_model_name, i, setup.cache));
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
    (own ? own->api.engines : api_.engines).add(engines_.back().get(), metrics);
    if (i == 0) {
      // Ids that end a sequence besides the backend's eos (unless ignore_eos): the tokenizer's
      // eot, and its eos where the model's differs.
      const int32_t backend_eos = backend->eos_token_id();
      auto add_stop = [&](int32_t id) {
        auto& ids = api_.extra_stop_token_ids;
        if (id >= 0 && id != backend_eos && std::find(ids.begin(), ids.end(), id) == ids.end()) {
          ids.push_back(id);
        }
      };
      for (int32_t id : api_.codec->extra_stop_token_ids()) add_stop(id);
      add_stop(api_.codec->eos_token_id());
      for (int32_t id : model_eos_ids_) add_stop(id);
    }
  }
  api_.registry = &registry_;
  api_.request_log = request_log_.get();
  api_.admission_metrics = admission_metrics_.get();
  api_.tracer = tracer_.get();
  sleep_ = make_sleep_state(options, sleep_families, setup.served_model_name,
                            [](const char* name) { return std::getenv(name); });
  api_.sleep = sleep_.get();
  router_ = std::make_unique<ApiRouter>(api_);
  if (options.test_double()) {
    FaultSettings faults;
    faults.config = options.faults;
    faults.enable_admin_api = options.enable_admin_api;
    faults.enable_fault_headers = options.enable_fault_headers;
    faults.api_key = options.api_key;
    faults.enable_request_id_headers = options.enable_request_id_headers;
    faults.model = setup.served_model_name;
    fault_state_ = std::make_unique<FaultState>(std::move(faults));
  }
  http_metrics_ = std::make_unique<HttpMetrics>(registry_);
  http_ = make_http(front_handler(*router_, fault_handler_), http_metrics_.get(), options.port);
  for (size_t k = 0; k < port_frontends_.size(); ++k) {
    finish_port_frontend(*port_frontends_[k], k + 1);
  }
}

std::vector<prometheus::MetricFamily> LlmServer::collect_engine_metrics() const {
  std::vector<prometheus::MetricFamily> families = api_.engines.collect_metrics(registry_);
  for (const auto& f : port_frontends_) {
    std::vector<prometheus::MetricFamily> more = f->api.engines.collect_metrics(f->registry);
    families.insert(families.end(), std::make_move_iterator(more.begin()),
                    std::make_move_iterator(more.end()));
  }
  return families;
}

HttpHandler& LlmServer::front_handler(ApiRouter& router, std::unique_ptr<FaultHandler>& keep) {
  if (!fault_state_) return router;
  keep = std::make_unique<FaultHandler>(router, *fault_state_);
  return *keep;
}

std::unique_ptr<HttpServer> LlmServer::make_http(HttpHandler& handler, HttpMetrics* metrics,
                                                 int port) const {
  const ServerOptions& options = context_.options;
  HttpServerConfig http;
  http.host = options.host;
  http.port = port;
  http.threads = options.http_threads;
  http.max_body_bytes = options.max_request_body_bytes;
  http.max_header_bytes = options.max_header_bytes;
  http.read_timeout_s = options.read_timeout_s;
  http.max_connections = options.max_connections;
  http.metrics = metrics;
  return std::make_unique<HttpServer>(handler, http);
}

void LlmServer::finish_port_frontend(PortFrontend& f, size_t engine) {
  ApiContext& c = f.api;
  c.options = api_.options;
  c.model = api_.model;
  c.model_root = api_.model_root;
  c.codec = api_.codec;
  c.seed_unseeded_requests = api_.seed_unseeded_requests;
  c.extra_stop_token_ids = api_.extra_stop_token_ids;
  c.pod_name = api_.pod_name;
  c.pod_namespace = api_.pod_namespace;
  c.request_log = api_.request_log;
  c.tracer = api_.tracer;
  c.sleep = api_.sleep;
  c.registry = &f.registry;
  if (!context_.options.disable_log_stats) {
    f.admission_metrics =
        std::make_unique<AdmissionMetrics>(f.registry, context_.setup.served_model_name);
    c.admission_metrics = f.admission_metrics.get();
  }
  f.router = std::make_unique<ApiRouter>(c);
  f.http_metrics = std::make_unique<HttpMetrics>(f.registry);
  const int base = context_.options.port;
  f.http = make_http(front_handler(*f.router, f.fault_handler), f.http_metrics.get(),
                     base == 0 ? 0 : base + static_cast<int>(engine));
}

std::function<Backend*()> LlmServer::setup_sim() {
  const ServerOptions& o = context_.options;
  context_.setup = make_engine_setup(o);
  api_.seed_unseeded_requests = false;
  std::shared_ptr<const Tokenizer> tokenizer;
  if (!o.tokenizer.empty()) tokenizer = load_server_tokenizer(o.tokenizer, "--tokenizer");
  const std::optional<ChatTemplate> chat = resolve_chat_template(o.chat_template, tokenizer.get());
  Deployment& deployment = context_.setup.deployment;
  if (tokenizer) {
    // The simulated model speaks the tokenizer's vocabulary; its eos becomes the tokenizer's.
    deployment.model.vocab = tokenizer->vocab_size();
    api_.codec = std::make_shared<TokenizerTextCodec>(tokenizer, chat);
  } else {
    api_.codec = std::make_shared<SimTextCodec>(deployment.model.vocab, chat);
  }
  const int32_t eos = tokenizer ? tokenizer->eos_id() : -1;
  return [this, eos, engines = uint64_t{0}]() mutable {
    const ServerOptions& o = context_.options;
    // Each engine its own stream of step-time draws (SimBackend), in the order they are made.
    backends_.push_back(std::make_unique<SimBackend>(context_.setup.deployment, o.seed, engines++));
    if (eos >= 0) backends_.push_back(std::make_unique<EosSwapBackend>(*backends_.back(), eos));
    backends_.push_back(std::make_unique<ScaledBackend>(*backends_.back(), o.step_time_scale));
    return backends_.back().get();
  };
}

std::shared_ptr<ModelWeights> LlmServer::load_served_model() const {
  const std::string& path = context_.options.engine.model;
  auto weights = std::make_shared<ModelWeights>();
  try {
    *weights = load_model_weights(path);
  } catch (const std::exception& e) {
    throw UsageError("--model " + path + ": cannot load the model: " + e.what());
  }
  return weights;
}

void LlmServer::use_model_tokenizer(const ModelConfig& config) {
  const ServerOptions& o = context_.options;
  const std::string& path = o.engine.model;
  api_.seed_unseeded_requests = true;
  std::shared_ptr<const Tokenizer> tokenizer = load_server_tokenizer(
      o.tokenizer.empty() ? path : o.tokenizer, o.tokenizer.empty() ? "--model" : "--tokenizer");
  if (tokenizer->vocab_size() > config.vocab_size) {
    throw UsageError((o.tokenizer.empty() ? "--model " + path : "--tokenizer " + o.tokenizer) +
                     ": the tokenizer has " + std::to_string(tokenizer->vocab_size()) +
                     " tokens, more than the model's vocab_size " +
                     std::to_string(config.vocab_size));
  }
  api_.codec = std::make_shared<TokenizerTextCodec>(
      tokenizer, resolve_chat_template(o.chat_template, tokenizer.get()));
  model_eos_ids_ = config.eos_token_ids;
}

std::function<Backend*()> LlmServer::setup_cpu() {
  const ServerOptions& o = context_.options;
  std::shared_ptr<ModelWeights> weights = load_served_model();
  context_.setup = make_model_engine_setup(o, weights->config);
  use_model_tokenizer(weights->config);
  CpuBackendOptions cpu;
  cpu.num_blocks = context_.setup.scheduler.num_gpu_blocks;
  cpu.block_size = context_.setup.scheduler.block_size;
  // The engines of --data-parallel-size share the cores rather than each spinning up all of them.
  const int cores =
      o.cpu_threads > 0 ? o.cpu_threads : static_cast<int>(std::thread::hardware_concurrency());
  cpu.threads = std::max(1, cores / std::max(1, static_cast<int>(o.data_parallel_size)));
  {
    check_weight_shapes(*weights, "cpu backend");
    ThreadPool pool(cores);  // the matrices packed once, for every engine
    cpu.packed = std::make_shared<const PackedModel>(pack_model(*weights, &pool));
    drop_packed_matrices(*weights);  // the model in memory once, not twice
  }
  std::shared_ptr<const ModelWeights> shared = std::move(weights);
  return [this, shared, cpu] {
    backends_.push_back(std::make_unique<CpuBackend>(shared, cpu));
    return backends_.back().get();
  };
}

LlmServer::~LlmServer() {
  if (http_) http_->stop();
  for (auto& f : port_frontends_) f->http->stop();
  // The engines go first: their sinks post into the HTTP servers' io_contexts; so does the test
  // double's timer (its waiting callbacks are dropped).
  engines_.clear();
  fault_state_.reset();
  http_.reset();
  port_frontends_.clear();
}

void LlmServer::start() {
  if (fault_state_) fault_state_->restart_health();  // --startup-delay counts from here
  http_->start();
  for (auto& f : port_frontends_) f->http->start();
  if (context_.options.kv_events.publishes()) start_kv_events();
}

void LlmServer::start_kv_events() {
  const KvEventsConfig& config = context_.options.kv_events;
  const std::string& model = context_.setup.served_model_name;
  // With separate ports engine i is an endpoint of its own: its port in the topic, its drop
  // counter on its own /metrics.
  std::vector<KvEventEngine> engines;
  for (size_t i = 0; i < engines_.size(); ++i) {
    const bool own = context_.options.data_parallel_separate_ports && i > 0;
    engines.push_back({kv_events_topic(config, own ? port(i) : port(), model),
                       own ? &port_frontends_[i - 1]->registry : &registry_});
  }
  kv_events_ = std::make_unique<KvEventPublisherSet>(config, engines, model);
  for (size_t i = 0; i < engines_.size(); ++i) {
    engines_[i]->set_kv_event_sink(
        [this, i](std::vector<KvEvent> events) { kv_events_->publish(i, std::move(events)); });
    const KvEventPublisher& p = kv_events_->at(i);
    std::fprintf(stderr, "llmserve: engine %zu publishes KV events on %s%s%s, topic %s\n", i,
                 p.endpoint().c_str(), p.replay_endpoint().empty() ? "" : ", replay on ",
                 p.replay_endpoint().c_str(), p.topic().c_str());
  }
}

void LlmServer::shutdown() {
  if (stopped_) return;
  stopped_ = true;
  using clock = std::chrono::steady_clock;
  api_.draining = true;
  http_->begin_drain();
  for (auto& f : port_frontends_) {
    f->api.draining = true;
    f->http->begin_drain();
  }
  const auto deadline =
      clock::now() + std::chrono::duration_cast<clock::duration>(
                         std::chrono::duration<double>(context_.options.shutdown_timeout_s));
  auto unfinished = [this] {
    size_t n = 0;
    for (const auto& e : engines_) n += e->num_unfinished();
    return n;
  };
  auto generations = [this] {
    size_t n = http_->active_generations();
    for (const auto& f : port_frontends_) n += f->http->active_generations();
    return n;
  };
  wait_until([&] { return unfinished() == 0; }, deadline);
  if (unfinished() > 0) {
    for (auto& e : engines_) e->abort_all();
  }
  // Let the sessions write the last frames of what just finished or was aborted.
  wait_until([&] { return unfinished() == 0 && generations() == 0; },
             clock::now() + std::chrono::seconds(2));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  http_->stop();
  for (auto& f : port_frontends_) f->http->stop();
  for (auto& e : engines_) e->stop();
  // The spans of what just finished: exported within a deadline of their own.
  if (tracer_) tracer_->exporter().shutdown(std::chrono::seconds(5));
}

}  // namespace llm
