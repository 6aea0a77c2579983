// The TextCodec of the simulated backend without --tokenizer: SimTokenizer's hashed word pieces
// for prompts and its synthetic vocabulary for output text (so decode is not the inverse of
// encode), and its own chat template ("<|role|>\ncontent\n" per message, then "<|assistant|>\n")
// unless --chat-template names one of the real ones.
// Thread-safety: immutable after construction; streams are per sequence.
#pragma once

#include <optional>

#include "backends/sim/sim_tokenizer.h"
#include "backends/tokenizer/chat_template.h"
#include "server/text/text_codec.h"

namespace llm {

class SimTextCodec final : public TextCodec {
 public:
  explicit SimTextCodec(int64_t vocab_size,
                        std::optional<ChatTemplate> chat_template = std::nullopt)
      : tokenizer_(vocab_size), chat_template_(chat_template) {}

  int64_t vocab_size() const override { return tokenizer_.vocab_size(); }
  int32_t eos_token_id() const override { return tokenizer_.eos_token_id(); }
  std::vector<int32_t> extra_stop_token_ids() const override { return {}; }
  std::vector<int32_t> encode(std::string_view text, bool add_special_tokens) const override;
  std::string render_chat(const std::vector<ChatMessage>& messages,
                          bool add_generation_prompt) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  std::string token_str(int32_t id) const override;
  std::unique_ptr<TextStream> stream() const override;

  const SimTokenizer& tokenizer() const { return tokenizer_; }

 private:
  SimTokenizer tokenizer_;
  std::optional<ChatTemplate> chat_template_;
};

}  // namespace llm
