// vLLM's dev-mode sleep endpoints (vllm/entrypoints/serve/dev sleep routes, registered when
// VLLM_SERVER_DEV_MODE=1 and the engine runs with --enable-sleep-mode):
//   POST /sleep?level=N&mode=M   level 1 (default) or 2; mode "abort" (default) aborts what runs,
//                                "wait" and "keep" let it finish. 200 with an empty body.
//   POST /wake_up?tags=T...      wakes the tags named ("weights", "kv_cache"), all when none.
//   GET  /is_sleeping            {"is_sleeping": bool}
// While the model sleeps, generation requests are refused with 503 (sleeping_refusal); the
// tokenizer, render, models, health and metrics routes keep answering.
// Thread-safety: as ApiContext (SleepState locks).
#pragma once

#include <optional>
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
// The 503 a generation request gets while the model sleeps, or nullopt when it is awake.
std::optional<HttpResponse> sleeping_refusal(const ApiContext& context);

// The values of `key` in a query string, in order, '+' and %XX decoded.
std::vector<std::string> query_values(std::string_view query, std::string_view key);

}  // namespace llm
