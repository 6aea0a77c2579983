// Startup choices about text: loading a real tokenizer (--tokenizer, or the cpu backend's
// --model) and picking the chat template (--chat-template, else recognised from the tokenizer's
// metadata). Errors are UsageErrors naming the flag, so llmserve exits with code 2.
// Thread-safety: pure functions (they read files).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "backends/tokenizer/chat_template.h"
#include "backends/tokenizer/tokenizer.h"

namespace llm {

// Throws UsageError "FLAG PATH: why" when the tokenizer cannot be loaded.
std::shared_ptr<const Tokenizer> load_server_tokenizer(const std::string& path,
                                                       const std::string& flag);

// The template to render chat prompts with: the flag's (llama2|llama3|chatml) when given, else the
// one recognised in the tokenizer's metadata. With a real tokenizer and neither, throws UsageError
// naming --chat-template. Without a tokenizer (the sim's own), nullopt unless the flag is given.
std::optional<ChatTemplate> resolve_chat_template(const std::string& flag_value,
                                                  const Tokenizer* tokenizer);

}  // namespace llm
