// Incremental detokenization: push token ids one at a time and get back only text that is final:
// complete UTF-8 characters (an incomplete trailing sequence is held until it completes or the
// stream ends; invalid bytes become U+FFFD), with the tokenizer's leading-space rule applied to
// the first emitted piece. The concatenation of all push() results and flush() equals
// Tokenizer::decode of the same ids.
// Thread-safety: none; one instance per stream. The Tokenizer must outlive it.
#pragma once

#include <cstdint>
#include <string>

namespace llm {

class Tokenizer;

class StreamingDetokenizer {
 public:
  // strip_leading_space: apply the tokenizer's whole-text rule (SentencePiece drops one leading
  // space of the first piece), as decode() does. A model's output is a continuation of its prompt,
  // so a server streams it with false: "▁Hello" as the first output token is " Hello", as vLLM
  // returns it (its detokenizer is primed with the prompt's last tokens).
  explicit StreamingDetokenizer(const Tokenizer& tokenizer, bool skip_special_tokens = true,
                                bool strip_leading_space = true);

  // Text made final by this token (possibly empty). Throws TokenizerError for a bad id.
  std::string push(int32_t id);
  // The held-back remainder (an incomplete sequence becomes one U+FFFD); resets nothing else.
  std::string flush();

 private:
  const Tokenizer& tokenizer_;
  bool skip_special_;
  bool strip_pending_;   // the next non-empty piece loses one leading space
  std::string pending_;  // bytes of an incomplete UTF-8 sequence
};

}  // namespace llm
