#include "backends/tokenizer/chat_template.h"

#include <stdexcept>

#include "backends/tokenizer/utf8.h"

namespace llm {

namespace {

// Python's str.isspace() for one code point (what Jinja's trim filter and str.strip() remove).
bool is_python_space(uint32_t cp) {
  if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F)) return true;
  switch (cp) {
    case 0x85:
    case 0xA0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202F:
    case 0x205F:
    case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

// The code point starting at s[pos] and its length; invalid bytes count as one non-space byte.
std::pair<uint32_t, size_t> code_point_at(std::string_view s, size_t pos) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data()) + pos;
  const int n = utf8_check(p, s.size() - pos);
  if (n <= 0) return {0xFFFD, 1};
  return {utf8_decode_valid(p, n), static_cast<size_t>(n)};
}

// Python's str.strip() with no arguments.
std::string strip(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size()) {
    const auto [cp, len] = code_point_at(s, begin);
    if (!is_python_space(cp)) break;
    begin += len;
  }
  // Scan forward remembering where the last non-space code point ends.
  size_t end = begin;
  for (size_t pos = begin; pos < s.size();) {
    const auto [cp, len] = code_point_at(s, pos);
    pos += len;
    if (!is_python_space(cp)) end = pos;
  }
  return std::string(s.substr(begin, end - begin));
}

// Llama-2-chat: "<s>[INST] <<SYS>>\n{system}\n<</SYS>>\n\n{user} [/INST] {assistant} </s>" and
// "<s>[INST] {user} [/INST]" for later turns; strip() applies to the whole first turn, system
// block included.
std::string render_llama2(const std::vector<ChatMessage>& messages) {
  size_t first = 0;
  const std::string* system = nullptr;
  if (!messages.empty() && messages[0].role == "system") {
    system = &messages[0].content;
    first = 1;
  }
  std::string out;
  for (size_t i = first; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    const size_t turn = i - first;
    const bool user_expected = turn % 2 == 0;
    if (m.role != "user" && m.role != "assistant") {
      throw std::invalid_argument("the llama2 chat template cannot express role '" + m.role +
                                  "' (message " + std::to_string(i) +
                                  "; only a first 'system', then 'user' and 'assistant')");
    }
    if ((m.role == "user") != user_expected) {
      throw std::invalid_argument(
          "the llama2 chat template needs roles alternating user/assistant/user/...; message " +
          std::to_string(i) + " has role '" + m.role + "'");
    }
    std::string content = m.content;
    if (turn == 0 && system != nullptr) {
      content = "<<SYS>>\n" + *system + "\n<</SYS>>\n\n" + content;
    }
    if (m.role == "user") {
      out += "<s>[INST] " + strip(content) + " [/INST]";
    } else {
      out += " " + strip(content) + " </s>";
    }
  }
  return out;
}

std::string render_llama3(const std::vector<ChatMessage>& messages, bool add_generation_prompt) {
  std::string out;
  for (size_t i = 0; i < messages.size(); ++i) {
    if (i == 0) out += "<|begin_of_text|>";
    out += "<|start_header_id|>" + messages[i].role + "<|end_header_id|>\n\n" +
           strip(messages[i].content) + "<|eot_id|>";
  }
  if (add_generation_prompt) out += "<|start_header_id|>assistant<|end_header_id|>\n\n";
  return out;
}

std::string render_chatml(const std::vector<ChatMessage>& messages, bool add_generation_prompt,
                          const std::string& default_system) {
  std::string out;
  if (!messages.empty() && messages[0].role != "system" && !default_system.empty()) {
    out += "<|im_start|>system\n" + default_system + "<|im_end|>\n";
  }
  for (const ChatMessage& m : messages) {
    out += "<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n";
  }
  if (add_generation_prompt) out += "<|im_start|>assistant\n";
  return out;
}

bool contains(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

// The default system message of a ChatML Jinja template: the literal between
// "<|im_start|>system" + newline (real, or the escape \n) and "<|im_end|>", when the template
// inserts it for conversations that do not start with a system message.
std::string chatml_default_system(std::string_view jinja) {
  if (!contains(jinja, "!= 'system'") && !contains(jinja, "!= \"system\"")) return "";
  const std::string_view open = "<|im_start|>system";
  for (size_t at = jinja.find(open); at != std::string_view::npos; at = jinja.find(open, at + 1)) {
    size_t pos = at + open.size();
    if (jinja.substr(pos, 1) == "\n") {
      pos += 1;
    } else if (jinja.substr(pos, 2) == "\\n") {
      pos += 2;
    } else {
      continue;
    }
    const size_t end = jinja.find("<|im_end|>", pos);
    if (end == std::string_view::npos) return "";
    const std::string_view text = jinja.substr(pos, end - pos);
    // A literal, not an expression such as "' + messages[0]['content'] + '".
    if (text.empty() || contains(text, "'") || contains(text, "\"") || contains(text, "{")) {
      continue;
    }
    return std::string(text);
  }
  return "";
}

}  // namespace

std::optional<ChatTemplateKind> parse_chat_template_name(std::string_view name) {
  if (name == "llama2") return ChatTemplateKind::kLlama2;
  if (name == "llama3") return ChatTemplateKind::kLlama3;
  if (name == "chatml" || name == "qwen" || name == "qwen2") return ChatTemplateKind::kChatml;
  return std::nullopt;
}

const char* chat_template_name(ChatTemplateKind kind) {
  switch (kind) {
    case ChatTemplateKind::kLlama2:
      return "llama2";
    case ChatTemplateKind::kLlama3:
      return "llama3";
    case ChatTemplateKind::kChatml:
      return "chatml";
  }
  return "chatml";
}

std::optional<ChatTemplate> detect_chat_template_details(std::string_view jinja) {
  if (contains(jinja, "<|start_header_id|>") && contains(jinja, "<|end_header_id|>") &&
      contains(jinja, "<|eot_id|>")) {
    // Llama 3.1+ templates insert a dated system message and tool blocks: not the Llama 3 format.
    if (contains(jinja, "Cutting Knowledge Date")) return std::nullopt;
    return ChatTemplate{ChatTemplateKind::kLlama3, ""};
  }
  if (contains(jinja, "<|im_start|>") && contains(jinja, "<|im_end|>")) {
    return ChatTemplate{ChatTemplateKind::kChatml, chatml_default_system(jinja)};
  }
  if (contains(jinja, "[INST]") && contains(jinja, "[/INST]") && contains(jinja, "<<SYS>>")) {
    return ChatTemplate{ChatTemplateKind::kLlama2, ""};
  }
  return std::nullopt;
}

std::optional<ChatTemplateKind> detect_chat_template(std::string_view jinja_text) {
  const auto details = detect_chat_template_details(jinja_text);
  if (!details) return std::nullopt;
  return details->kind;
}

ChatTemplate chat_template_for(ChatTemplateKind kind) {
  return ChatTemplate{kind, kind == ChatTemplateKind::kChatml ? kChatmlDefaultSystem : ""};
}

std::string render_chat(const ChatTemplate& tmpl, const std::vector<ChatMessage>& messages,
                        bool add_generation_prompt) {
  switch (tmpl.kind) {
    case ChatTemplateKind::kLlama2:
      return render_llama2(messages);
    case ChatTemplateKind::kLlama3:
      return render_llama3(messages, add_generation_prompt);
    case ChatTemplateKind::kChatml:
      return render_chatml(messages, add_generation_prompt, tmpl.default_system);
  }
  throw std::invalid_argument("unknown chat template kind");
}

std::string render_chat(ChatTemplateKind kind, const std::vector<ChatMessage>& messages,
                        bool add_generation_prompt) {
  return render_chat(chat_template_for(kind), messages, add_generation_prompt);
}

// One line each, so that no template text outside the {{ }} output reaches the prompt; "\\n" is
// Jinja's escape inside a string literal.
std::string chat_template_jinja(ChatTemplateKind kind) {
  switch (kind) {
    case ChatTemplateKind::kLlama2:
      return "{% if messages and messages[0]['role'] == 'system' %}"
             "{% set system = messages[0]['content'] %}{% set turns = messages[1:] %}"
             "{% else %}{% set system = none %}{% set turns = messages %}{% endif %}"
             "{% for message in turns %}"
             "{% if message['role'] != 'user' and message['role'] != 'assistant' %}"
             "{{ raise_exception('llama2 chat: only a first system message, then user and "
             "assistant') }}{% endif %}"
             "{% if (message['role'] == 'user') != (loop.index0 % 2 == 0) %}"
             "{{ raise_exception('llama2 chat: roles must alternate user/assistant') }}"
             "{% endif %}"
             "{% if loop.first and system is not none %}"
             "{% set text = '<<SYS>>\\n' + system + '\\n<</SYS>>\\n\\n' + message['content'] %}"
             "{% else %}{% set text = message['content'] %}{% endif %}"
             "{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + text | trim + ' "
             "[/INST]' }}"
             "{% else %}{{ ' ' + text | trim + ' ' + eos_token }}{% endif %}"
             "{% endfor %}";
    case ChatTemplateKind::kLlama3:
      return "{% for message in messages %}{% if loop.first %}{{ bos_token }}{% endif %}"
             "{{ '<|start_header_id|>' + message['role'] + '<|end_header_id|>\\n\\n' + "
             "message['content'] | trim + '<|eot_id|>' }}{% endfor %}"
             "{% if add_generation_prompt %}"
             "{{ '<|start_header_id|>assistant<|end_header_id|>\\n\\n' }}{% endif %}";
    case ChatTemplateKind::kChatml:
      return std::string(
                 "{% if messages and messages[0]['role'] != 'system' %}"
                 "{{ '<|im_start|>system\\n") +
             kChatmlDefaultSystem +
             "<|im_end|>\\n' }}{% endif %}"
             "{% for message in messages %}"
             "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' }}"
             "{% endfor %}"
             "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";
  }
  throw std::invalid_argument("unknown chat template kind");
}

}  // namespace llm
