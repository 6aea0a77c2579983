#include "server/text/tokenizer_text_codec.h"

#include <stdexcept>

#include "backends/tokenizer/streaming_detokenizer.h"

namespace llm {
namespace {

class TokenizerTextStream final : public TextStream {
 public:
  explicit TokenizerTextStream(std::shared_ptr<const Tokenizer> tokenizer)
      : tokenizer_(std::move(tokenizer)),
        detok_(*tokenizer_, /*skip_special_tokens=*/true, /*strip_leading_space=*/false) {}
  // Ids the model may sample beyond the tokenizer's vocabulary (padded embedding rows) have no
  // text.
  std::string push(int32_t id) override {
    if (id < 0 || id >= tokenizer_->vocab_size()) return {};
    return detok_.push(id);
  }
  std::string flush() override { return detok_.flush(); }

 private:
  std::shared_ptr<const Tokenizer> tokenizer_;  // keeps the tokenizer alive for detok_
  StreamingDetokenizer detok_;
};

}  // namespace

TokenizerTextCodec::TokenizerTextCodec(std::shared_ptr<const Tokenizer> tokenizer,
                                       std::optional<ChatTemplate> chat_template)
    : tokenizer_(std::move(tokenizer)), chat_template_(chat_template) {}

std::vector<int32_t> TokenizerTextCodec::extra_stop_token_ids() const {
  const int32_t eot = tokenizer_->eot_id();
  if (eot < 0 || eot == tokenizer_->eos_id()) return {};
  return {eot};
}

std::vector<int32_t> TokenizerTextCodec::encode(std::string_view text,
                                                bool add_special_tokens) const {
  return tokenizer_->encode(text, add_special_tokens, /*parse_special=*/true);
}

std::string TokenizerTextCodec::render_chat(const std::vector<ChatMessage>& messages,
                                            bool add_generation_prompt) const {
  if (!chat_template_) {
    throw std::invalid_argument("the model has no chat template this server can render");
  }
  return llm::render_chat(*chat_template_, messages, add_generation_prompt);
}

std::string TokenizerTextCodec::decode(const std::vector<int32_t>& ids) const {
  return tokenizer_->decode(ids, /*skip_special_tokens=*/false);
}

std::string TokenizerTextCodec::token_str(int32_t id) const {
  return tokenizer_->vocab().tokens.at(static_cast<size_t>(id));
}

std::unique_ptr<TextStream> TokenizerTextCodec::stream() const {
  return std::make_unique<TokenizerTextStream>(tokenizer_);
}

}  // namespace llm
