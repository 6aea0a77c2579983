// How the engine arguments (core/engine_args.h) resolve into a scheduler configuration and a
// simulated deployment: presets or JSON profiles, vLLM's device-dependent defaults, KV capacity
// from the cost model, and validation.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>

#include "backends/sim/api_server_costs.h"
#include "backends/sim/cost_model.h"
#include "core/engine_args.h"
#include "core/scheduler_config.h"

namespace llm {

struct ResolvedEngine {
  SchedulerConfig scheduler;
  Deployment deployment;
  std::string kv_cache_dtype;  // as cache_config_info reports it
  std::string model_name;      // the served name by default: --model, or the profile's model
  // The API server's costs: the GPU preset host's, or the profile's api_server block (none for a
  // GPU from a JSON file or a profile measured without one).
  std::optional<ApiServerCosts> api_server;
};

// Throws UsageError whose message starts with the offending flag.
ResolvedEngine resolve_engine_args(const EngineArgs& args);

}  // namespace llm
