// vLLM's POST /tokenize and POST /detokenize. /tokenize takes {"model", "prompt",
// "add_special_tokens" (true)} or {"model", "messages", "add_generation_prompt" (true),
// "add_special_tokens" (false)}, plus "return_token_strs" (false), and answers {"count",
// "max_model_len", "tokens", "token_strs"}; the ids are exactly those a completion or chat request
// with the same input would be given. /detokenize takes {"model", "tokens"} and answers
// {"prompt"} (special tokens kept, as Hugging Face's decode by default). Other fields, top-level
// or inside a message, are ignored as vLLM does, their names appended to `ignored` when given.
// Thread-safety: pure functions of the codec.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "server/api/openai_request.h"
#include "server/text/text_codec.h"

namespace llm {

// The JSON response body. Throw ApiException (400 naming the field, 404 for another model).
std::string tokenize_response(std::string_view body, const TextCodec& codec, const ModelInfo& model,
                              std::vector<std::string>* ignored = nullptr);
std::string detokenize_response(std::string_view body, const TextCodec& codec,
                                const ModelInfo& model,
                                std::vector<std::string>* ignored = nullptr);

}  // namespace llm
