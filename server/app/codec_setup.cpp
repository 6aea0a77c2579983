#include "server/app/codec_setup.h"

#include <exception>

#include "server/app/server_options.h"

namespace llm {

std::shared_ptr<const Tokenizer> load_server_tokenizer(const std::string& path,
                                                       const std::string& flag) {
  try {
    return std::shared_ptr<const Tokenizer>(load_tokenizer(path));
  } catch (const std::exception& e) {
    throw UsageError(flag + " " + path + ": cannot load the tokenizer: " + e.what());
  }
}

std::optional<ChatTemplate> resolve_chat_template(const std::string& flag_value,
                                                  const Tokenizer* tokenizer) {
  if (!flag_value.empty()) {
    std::optional<ChatTemplateKind> kind = parse_chat_template_name(flag_value);
    if (!kind) {
      throw UsageError("--chat-template: expected llama2, llama3 or chatml, got '" + flag_value +
                       "'");
    }
    return chat_template_for(*kind);
  }
  if (!tokenizer) return std::nullopt;
  const std::string& text = tokenizer->chat_template_text();
  if (std::optional<ChatTemplate> tmpl = detect_chat_template_details(text)) return tmpl;
  throw UsageError(std::string("--chat-template: ") +
                   (text.empty() ? "the tokenizer has no chat template"
                                 : "the tokenizer's chat template is not one this server knows") +
                   "; set --chat-template llama2, llama3 or chatml");
}

}  // namespace llm
