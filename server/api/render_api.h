// vLLM's render endpoints, POST /v1/completions/render and POST /v1/chat/completions/render: the
// same body as /v1/completions or /v1/chat/completions, validated the same way (the same 400s and
// 404), answered with what the request would run with, without running it. The shape is vLLM's
// GenerateRequest (vllm/entrypoints/serve/disagg/protocol.py): {"request_id", "token_ids",
// "features" (null: no multimodal input), "sampling_params", "model", "stream", "stream_options",
// "cache_salt", "priority", "kv_transfer_params" (null)}; chat answers one object, completions a
// list with one per prompt. sampling_params carries the parameters this server implements
// (max_tokens resolved against the context, as the engine gets it). Like vLLM's, the answer holds
// no prompt text; /detokenize turns the ids back into text. Endpoint picker prefix scoring reads
// token_ids.
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "server/api/openai_request.h"

namespace llm {

// The JSON body for a parsed chat (one object) or completions (a list) request; `request_id` is
// suffixed to "chatcmpl-" / "cmpl-" (with the prompt's index for completions' second and later).
std::string render_response(const CompletionRequest& request, const std::string& request_id,
                            int64_t max_model_len);

}  // namespace llm
