// What the API layer is told of llmserve's options and of the engine setup (ApiContext's plain
// parts): the flags it reads, and the served model as requests see it.
// Thread-safety: pure functions.
#pragma once

#include "server/api/api_context.h"
#include "server/app/server_options.h"

namespace llm {

ApiOptions api_options(const ServerOptions& options);
// The served names, the context length, whether "priority" is honoured (--scheduling-policy
// priority) and whether the backend's sampler takes every SamplingControls (not cuda's, yet).
ModelInfo served_model_info(const ServerOptions& options, const EngineSetup& setup);

}  // namespace llm
