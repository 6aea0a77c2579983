// llmserve's engine setup for a real backend (--backend cpu): the scheduler configuration of the
// model file (backends/cpu/cpu_engine_config.h, shared with llmsim calibrate), the cache info
// /metrics reports, and the served model name (the model's path unless --served-model-name).
// Thread-safety: pure functions.
#pragma once

#include "backends/model/model_config.h"
#include "server/app/server_options.h"

namespace llm {

// Throws UsageError naming the flag (e.g. a budget too small for one full-length sequence).
EngineSetup make_model_engine_setup(const ServerOptions& options, const ModelConfig& model);

}  // namespace llm
