#include "server/text/sim_text_codec.h"

namespace llm {
namespace {

class SimTextStream final : public TextStream {
 public:
  explicit SimTextStream(const SimTokenizer& tokenizer) : tokenizer_(tokenizer) {}
  std::string push(int32_t id) override { return std::string(tokenizer_.piece(id)); }
  std::string flush() override { return {}; }

 private:
  const SimTokenizer& tokenizer_;
};

constexpr std::string_view kGenerationPrompt = "<|assistant|>\n";

// "<|role|>\ncontent\n" per message.
std::string render_sim_chat(const std::vector<ChatMessage>& messages) {
  std::string text;
  for (const ChatMessage& m : messages) text += "<|" + m.role + "|>\n" + m.content + "\n";
  return text;
}

}  // namespace

std::vector<int32_t> SimTextCodec::encode(std::string_view text, bool) const {
  return tokenizer_.encode(text);
}

std::string SimTextCodec::render_chat(const std::vector<ChatMessage>& messages,
                                      bool add_generation_prompt) const {
  if (chat_template_) return llm::render_chat(*chat_template_, messages, add_generation_prompt);
  std::string text = render_sim_chat(messages);
  if (add_generation_prompt) text += kGenerationPrompt;
  return text;
}

std::string SimTextCodec::decode(const std::vector<int32_t>& ids) const {
  return tokenizer_.decode(ids);
}

std::string SimTextCodec::token_str(int32_t id) const { return std::string(tokenizer_.piece(id)); }

std::unique_ptr<TextStream> SimTextCodec::stream() const {
  return std::make_unique<SimTextStream>(tokenizer_);
}

}  // namespace llm
