// The TextCodec of a real model tokenizer (GGUF metadata or tokenizer.json): prompts encoded with
// special-token text parsed, chat prompts rendered with one of the known templates (Llama 2,
// Llama 3, ChatML) and encoded without added special tokens as vLLM does, output text through a
// StreamingDetokenizer per sequence. Its eos and eot (when distinct) both end a sequence.
// Thread-safety: immutable after construction; streams are per sequence.
#pragma once

#include <memory>
#include <optional>

#include "backends/tokenizer/chat_template.h"
#include "backends/tokenizer/tokenizer.h"
#include "server/text/text_codec.h"

namespace llm {

class TokenizerTextCodec final : public TextCodec {
 public:
  // Without a chat template, render_chat throws std::invalid_argument (the server refuses to
  // start in that case, so this only happens in tests).
  TokenizerTextCodec(std::shared_ptr<const Tokenizer> tokenizer,
                     std::optional<ChatTemplate> chat_template);

  int64_t vocab_size() const override { return tokenizer_->vocab_size(); }
  int32_t eos_token_id() const override { return tokenizer_->eos_id(); }
  std::vector<int32_t> extra_stop_token_ids() const override;
  std::vector<int32_t> encode(std::string_view text, bool add_special_tokens) const override;
  std::string render_chat(const std::vector<ChatMessage>& messages,
                          bool add_generation_prompt) const override;
  std::string decode(const std::vector<int32_t>& ids) const override;
  std::string token_str(int32_t id) const override;
  std::unique_ptr<TextStream> stream() const override;

  const Tokenizer& tokenizer() const { return *tokenizer_; }
  std::optional<ChatTemplate> chat_template() const { return chat_template_; }

 private:
  std::shared_ptr<const Tokenizer> tokenizer_;
  std::optional<ChatTemplate> chat_template_;
};

}  // namespace llm
