// Chat templates for /v1/chat/completions: the prompt formats of Llama 2 chat, Llama 3 instruct and
// ChatML (Qwen), rendered exactly as the models' Hugging Face Jinja templates render them. We do
// not run Jinja: a model's template text is recognised as one of the known kinds, or the server
// is told which one with --chat-template.
// The rendered text holds special-token text ("<s>", "<|begin_of_text|>", "<|im_start|>"), so it is
// tokenized with Tokenizer::encode(text, /*add_special_tokens=*/false, /*parse_special=*/true),
// as vLLM does for chat requests.
// Thread-safety: stateless functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/model/chat_message.h"

namespace llm {

enum class ChatTemplateKind { kLlama2, kLlama3, kChatml };

// "llama2", "llama3", "chatml" (also "qwen" for chatml); nullopt for anything else.
std::optional<ChatTemplateKind> parse_chat_template_name(std::string_view name);
const char* chat_template_name(ChatTemplateKind kind);
// Recognises a model's Jinja template text by its markers; nullopt when it is none of ours.
std::optional<ChatTemplateKind> detect_chat_template(std::string_view jinja_text);

// The prompt text for `messages`; add_generation_prompt appends the assistant turn's opening.
// Throws std::invalid_argument for a role the template cannot express (message names the role).
std::string render_chat(ChatTemplateKind kind, const std::vector<ChatMessage>& messages,
                        bool add_generation_prompt = true);

}  // namespace llm
