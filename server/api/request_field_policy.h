// Which fields of a /v1/chat/completions or /v1/completions body are read, refused or ignored, as
// vLLM treats them: features that would change the result and that this server does not implement
// are a 400 naming the field unless they hold their neutral value (never silently ignored); fields
// that are neither known nor refused are accepted and listed for the request's log line.
// Thread-safety: pure functions.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "server/api/openai_request.h"

namespace llm {

// Unsupported features (tools, guided decoding, audio, chat's echo, a response_format other than
// text, best_of other than n...): a 400 naming the field unless it holds its neutral value.
// With `structured_outputs` (chat on a backend that synthesizes them: ModelInfo), `tools`,
// `tool_choice` and `response_format` are left to parse_structured_output.
void refuse_unsupported_fields(const nlohmann::json& body, Endpoint endpoint,
                               bool structured_outputs = false);
// vLLM's own request fields that we do not implement (chat_template, use_beam_search, bad_words,
// ...): accepted only at their neutral value (absent, null, the default, or empty).
void refuse_unimplemented_vllm_fields(const nlohmann::json& body);
// The top-level fields neither known nor refused are appended to `ignored`.
void collect_unknown_fields(const nlohmann::json& body, Endpoint endpoint,
                            std::vector<std::string>& ignored);

}  // namespace llm
