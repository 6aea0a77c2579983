#include "backends/tokenizer/streaming_detokenizer.h"

#include "backends/tokenizer/tokenizer.h"
#include "backends/tokenizer/utf8.h"

namespace llm {

StreamingDetokenizer::StreamingDetokenizer(const Tokenizer& tokenizer, bool skip_special_tokens,
                                           bool strip_leading_space)
    : tokenizer_(tokenizer),
      skip_special_(skip_special_tokens),
      strip_pending_(strip_leading_space && tokenizer.strips_leading_space()) {}

std::string StreamingDetokenizer::push(int32_t id) {
  std::string piece = tokenizer_.piece(id, skip_special_);
  if (piece.empty()) return {};
  if (strip_pending_) {
    strip_pending_ = false;
    if (piece[0] == ' ') piece.erase(0, 1);
  }
  pending_ += piece;
  std::string out;
  const size_t used = utf8_sanitize_stable(pending_, out);
  pending_.erase(0, used);
  return out;
}

std::string StreamingDetokenizer::flush() {
  std::string out = utf8_sanitize(pending_);
  pending_.clear();
  return out;
}

}  // namespace llm
