// How the engine arguments (core/engine_args.h) resolve into a scheduler configuration and a
// simulated deployment: presets or JSON profiles, vLLM's device-dependent defaults, KV capacity
// from the cost model, and validation.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "backends/sim/cost_model.h"
#include "core/engine_args.h"
#include "core/scheduler_config.h"

namespace llm {

struct ResolvedEngine {
  SchedulerConfig scheduler;
  Deployment deployment;
  std::string kv_cache_dtype;  // as cache_config_info reports it
  std::string model_name;      // the served name by default: --model, or the profile's model
};

// Throws UsageError whose message starts with the offending flag.
ResolvedEngine resolve_engine_args(const EngineArgs& args);

}  // namespace llm
