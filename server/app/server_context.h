// What LlmServer builds its parts from: llmserve's options and the engine configuration its
// backend's setup resolved from them. The API layer sees neither: it gets an ApiContext
// (server/api/api_context.h, built by server/app/api_setup.h).
// Thread-safety: immutable once the server is built.
#pragma once

#include "server/app/server_options.h"

namespace llm {

struct ServerContext {
  ServerOptions options;
  EngineSetup setup;
};

}  // namespace llm
