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

#include "backends/tokenizer/chat_message.h"

namespace llm {

enum class ChatTemplateKind { kLlama2, kLlama3, kChatml };

// Rendering follows the models' templates exactly (see chat_template.cpp for each format):
//  - kLlama2 (Llama-2-*-chat-hf): an optional first system message goes into the first user turn as
//    "<<SYS>>\n{system}\n<</SYS>>\n\n"; turns must alternate user/assistant (starting with user);
//    contents are stripped of surrounding whitespace (Python str.strip). The prompt already ends
//    where the assistant answers, so add_generation_prompt changes nothing.
//  - kLlama3 (Meta-Llama-3-*-Instruct): any role; contents are trimmed.
//  - kChatml (Qwen2-*-Instruct): any role; contents verbatim. When the conversation does not
//    start with a system message, a default one is inserted: "You are a helpful assistant." for
//    ChatTemplateKind::kChatml (as Qwen2-Instruct's template does), or what the model's own
//    template says (ChatTemplate::default_system, from detect_chat_template_details).
// "llama2", "llama3", "chatml" (also "qwen" and "qwen2" for chatml); nullopt for anything else.
std::optional<ChatTemplateKind> parse_chat_template_name(std::string_view name);
const char* chat_template_name(ChatTemplateKind kind);
// Recognises a model's Jinja template text by its markers; nullopt when it is none of ours.
std::optional<ChatTemplateKind> detect_chat_template(std::string_view jinja_text);

// The prompt text for `messages`; add_generation_prompt appends the assistant turn's opening.
// Throws std::invalid_argument for a role the template cannot express (message names the role).
std::string render_chat(ChatTemplateKind kind, const std::vector<ChatMessage>& messages,
                        bool add_generation_prompt = true);

// Qwen2-Instruct's default system message, used by kChatml.
inline constexpr const char* kChatmlDefaultSystem = "You are a helpful assistant.";

// A template kind with the details a model's Jinja text adds to it.
struct ChatTemplate {
  ChatTemplateKind kind = ChatTemplateKind::kChatml;
  // kChatml: the system message inserted when the conversation has none ("" = none).
  std::string default_system;
};

// The template for a kind as the --chat-template flag names it (kChatml with Qwen2's default).
ChatTemplate chat_template_for(ChatTemplateKind kind);
// As detect_chat_template, and for ChatML reads the default system message out of the Jinja text
// (Qwen1.5 and the qwen2 GGUF say "You are a helpful assistant" without the period; a plain
// ChatML template has none). Llama 3.1-style templates (which add a dated system message) are
// not recognised.
std::optional<ChatTemplate> detect_chat_template_details(std::string_view jinja_text);
std::string render_chat(const ChatTemplate& tmpl, const std::vector<ChatMessage>& messages,
                        bool add_generation_prompt = true);

// A Hugging Face-style Jinja chat template (variables messages, add_generation_prompt, bos_token,
// eos_token; raise_exception for what Llama 2 cannot express) that renders what render_chat(kind,
// ...) renders, for model files to carry as tokenizer.chat_template. detect_chat_template_details
// gives back chat_template_for(kind).
std::string chat_template_jinja(ChatTemplateKind kind);

}  // namespace llm
