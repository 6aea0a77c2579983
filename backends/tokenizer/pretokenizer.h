// Pre-tokenizers of byte-level BPE: split text into words with a regex (PCRE2, UTF-8 + UCP) before
// BPE runs on each word. Unmatched gaps between matches are kept as words of their own, so the
// words always concatenate back to the input.
// Thread-safety: a Pretokenizer is immutable after construction; split() allocates its own match
// data and is safe to call from several threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

enum class PretokenizerKind { kGpt2, kLlama3, kQwen2 };

// Maps tokenizer.ggml.pre values: "gpt2", "gpt-2", "default" or empty -> kGpt2; "llama-bpe",
// "llama3" -> kLlama3; "qwen2" -> kQwen2. Throws std::invalid_argument for other names.
PretokenizerKind pretokenizer_kind_from_name(const std::string& name);
const char* pretokenizer_regex(PretokenizerKind kind);

class Pretokenizer {
 public:
  // Throws std::runtime_error when the regex does not compile or PCRE2 is not available.
  explicit Pretokenizer(PretokenizerKind kind);
  ~Pretokenizer();
  Pretokenizer(const Pretokenizer&) = delete;
  Pretokenizer& operator=(const Pretokenizer&) = delete;

  // `text` must be valid UTF-8. The views point into `text`.
  std::vector<std::string_view> split(std::string_view text) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm
