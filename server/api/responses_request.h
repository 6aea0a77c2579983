// Parsing of POST /v1/responses bodies (OpenAI's Responses API) into a CompletionRequest that runs
// as one chat request (endpoint kResponses, n = 1): `input` as a string (one user message) or a
// list of message items (role plus content as a string or a list of input_text / output_text
// parts), `instructions` as a leading system message, max_output_tokens, temperature, top_p,
// stream, user, metadata, priority and cache_salt. The messages go through the same chat template
// and context check as /v1/chat/completions. Parts we do not implement (tools, background, store,
// previous_response_id, conversation, prompt templates, include, structured text formats,
// reasoning, top_logprobs) are a 400 naming the field; unknown fields are ignored and listed in
// ignored_fields, as on the other endpoints. A backend with ModelInfo::structured_outputs (the
// sim) takes text.format json_object / json_schema into `structured` (synthetic JSON text).
// Thread-safety: pure functions.
#pragma once

#include <string_view>

#include "server/api/openai_request.h"
#include "server/text/text_codec.h"

namespace llm {

// Throws ApiException (400 naming the field, 404 for another model).
CompletionRequest parse_responses_request(std::string_view body, const TextCodec& codec,
                                          const ModelInfo& model);

}  // namespace llm
