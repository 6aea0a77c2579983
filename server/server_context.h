// What the HTTP layer, the router and the completion jobs share: the options, the engine
// configuration, the tokenizer, the engine service, the metrics registry and the request log.
// Thread-safety: everything is immutable after start except `draining` (atomic) and the objects
// behind the pointers, which are thread-safe in the ways their headers state.
#pragma once

#include <prometheus/registry.h>

#include <atomic>
#include <cstdint>

#include "core/vllm_metrics.h"
#include "server/engine_service.h"
#include "server/request_log.h"
#include "server/server_options.h"
#include "server/sim_tokenizer.h"

namespace llm {

struct ServerContext {
  ServerOptions options;
  EngineSetup setup;
  SimTokenizer tokenizer{2};
  EngineService* engine = nullptr;
  prometheus::Registry* registry = nullptr;
  EngineMetrics* metrics = nullptr;        // null with --disable-log-stats
  RequestLog* request_log = nullptr;       // null without --request-log
  std::atomic<bool> draining{false};       // SIGTERM received: /health 503, no new generations
  std::atomic<uint64_t> next_sequence{0};  // makes engine request ids unique
};

}  // namespace llm
