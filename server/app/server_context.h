// What the HTTP layer, the router and the completion jobs share: the options, the engine
// configuration, the text codec (tokenizer), the engine service, the metrics registry and the
// request log. Thread-safety: everything is immutable after start except `draining` (atomic) and
// the objects behind the pointers, which are thread-safe in the ways their headers state.
#pragma once

#include <prometheus/registry.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/vllm_metrics.h"
#include "server/api/request_log.h"
#include "server/app/server_options.h"
#include "server/engine/engine_set.h"
#include "server/text/text_codec.h"
#include "server/tracing/request_tracer.h"

namespace llm {

struct ServerContext {
  ServerOptions options;
  EngineSetup setup;
  std::shared_ptr<const TextCodec> codec;  // prompts, chat templates, output text
  // Requests that send no "seed" get one from a counter mixed with --seed, so unseeded samples
  // differ (real backends, as vLLM); off, they keep seed 0 (the sim: text follows the prompt).
  bool seed_unseeded_requests = false;
  // Ids that end a sequence unless ignore_eos, besides the backend's eos: the tokenizer's eot (and
  // eos where it differs from the model's), as vLLM adds generation_config's eos_token_ids.
  std::vector<int32_t> extra_stop_token_ids;
  EngineSet engines;  // one per --data-parallel-size
  prometheus::Registry* registry = nullptr;
  RequestLog* request_log = nullptr;              // null without --request-log
  AdmissionMetrics* admission_metrics = nullptr;  // null with --disable-log-stats
  // llm-d's model-server headers on generation responses: x-inference-pod (and x-inference-port,
  // the port the request came in on) when POD_NAME is set, x-inference-namespace when
  // POD_NAMESPACE is ("" = unset; read once at startup).
  std::string pod_name;
  std::string pod_namespace;
  RequestTracer* tracer = nullptr;         // null without an OTLP traces endpoint
  std::atomic<bool> draining{false};       // SIGTERM received: /health 503, no new generations
  std::atomic<uint64_t> next_sequence{0};  // makes engine request ids unique
  std::atomic<uint64_t> next_seed{0};      // default seeds of unseeded requests (real backends)
};

}  // namespace llm
