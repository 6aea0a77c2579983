// vLLM's dev-mode sleep endpoints (vllm/entrypoints/serve/dev sleep routes, registered when
// VLLM_SERVER_DEV_MODE=1 and the engine runs with --enable-sleep-mode):
//   POST /sleep?level=N&mode=M   level 1 (default) or 2; mode "abort" (default) aborts what runs,
//                                "wait" and "keep" let it finish. 200 with an empty body.
//   POST /wake_up?tags=T...      wakes the tags named ("weights", "kv_cache"), all when none.
//   GET  /is_sleeping            {"is_sleeping": bool}
// While the model sleeps, generation requests are accepted and wait in the engines' queues until
// a wake-up leaves nothing asleep, as in vLLM (EngineCore.sleep pauses the scheduler, "all pause
// modes queue new adds"); the tokenizer, render, models, health and metrics routes keep answering.
// Thread-safety: as ApiContext (SleepState locks).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/api/api_context.h"
#include "server/http/http_message.h"

namespace llm {

// Throw ApiException (400 naming the query parameter) for a bad level or mode.
HttpResponse sleep_response(ApiContext& context, std::string_view query);
HttpResponse wake_up_response(ApiContext& context, std::string_view query);
HttpResponse is_sleeping_response(const ApiContext& context);

// The values of `key` in a query string, in order, '+' and %XX decoded.
std::vector<std::string> query_values(std::string_view query, std::string_view key);

}  // namespace llm
