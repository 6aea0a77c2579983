// What the API layer (the router and the completion jobs) works with, and nothing more: the
// options it reads, the served model as requests see it, the text codec, the engines, the metrics
// registry, the request log and the tracer. server/app builds one per front end from llmserve's
// options and the engine setup its backend resolved (server/app/api_setup.h).
// Thread-safety: everything is immutable after start except `draining` and the counters (atomic)
// and the objects behind the pointers, which are thread-safe in the ways their headers state.
#pragma once

#include <prometheus/registry.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/admission_rule.h"
#include "core/vllm_metrics.h"
#include "server/api/openai_request.h"
#include "server/api/request_log.h"
#include "server/api/sleep_state.h"
#include "server/engine/engine_set.h"
#include "server/text/text_codec.h"
#include "server/tracing/request_tracer.h"

namespace llm {

// Seconds in the Retry-After header of a 503 from admission control.
inline constexpr int kAdmissionRetryAfterS = 1;

// The flags the API layer reads (llmserve's names).
struct ApiOptions {
  std::string api_key;          // --api-key or VLLM_API_KEY: guards the API routes ("" = open)
  std::string metrics_api_key;  // guards /metrics ("" = open)
  bool enable_request_id_headers = false;
  bool enable_force_include_usage = false;
  bool enable_per_request_metrics = false;
  bool enable_prompt_tokens_details = false;
  // --max-waiting-requests: refuse completions while this many sequences wait; -1 = no limit.
  int64_t max_waiting_requests = -1;
  // vLLM's --max-num-queued-reqs and --max-num-queued-tokens (core/admission_rule.h).
  AdmissionCaps admission_caps;
  uint64_t seed = 0;  // --seed: mixed into the seeds of unseeded requests (seed_unseeded_requests)
};

struct ApiContext {
  ApiOptions options;
  ModelInfo model;         // the served model's names, context length and sampler, as parsed
  std::string model_root;  // /v1/models' "root": --model, as vLLM's
  std::shared_ptr<const TextCodec> codec;  // prompts, chat templates, output text
  // Requests that send no "seed" get one from a counter mixed with --seed, so unseeded samples
  // differ (real backends, as vLLM); off, they keep seed 0 (the sim: text follows the prompt).
  bool seed_unseeded_requests = false;
  // Ids that end a sequence unless ignore_eos, besides the backend's eos: the tokenizer's eot (and
  // eos where it differs from the model's), as vLLM adds generation_config's eos_token_ids.
  std::vector<int32_t> extra_stop_token_ids;
  EngineSet engines;  // one per --data-parallel-size (this front end's)
  prometheus::Registry* registry = nullptr;
  RequestLog* request_log = nullptr;              // null without --request-log
  AdmissionMetrics* admission_metrics = nullptr;  // null with --disable-log-stats
  // llm-d's model-server headers on generation responses: x-inference-pod (and x-inference-port,
  // the port the request came in on) when POD_NAME is set, x-inference-namespace when
  // POD_NAMESPACE is ("" = unset; read once at startup).
  std::string pod_name;
  std::string pod_namespace;
  RequestTracer* tracer = nullptr;  // null without an OTLP traces endpoint
  // Sleep mode (server/api/sleep_api.h): null unless --enable-sleep-mode and VLLM_SERVER_DEV_MODE,
  // and then the routes /sleep, /wake_up and /is_sleeping do not exist.
  SleepState* sleep = nullptr;
  std::atomic<bool> draining{false};       // SIGTERM received: /health 503, no new generations
  std::atomic<uint64_t> next_sequence{0};  // makes engine request ids unique
  std::atomic<uint64_t> next_seed{0};      // default seeds of unseeded requests (real backends)
};

}  // namespace llm
