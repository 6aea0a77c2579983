// Byte-level BPE (tokenizer.ggml.model = "gpt2": GPT-2, Llama 3, Qwen2).
// Encoding: the pre-tokenizer (chosen by tokenizer.ggml.pre) splits the text into words; each
// word's bytes are mapped to the byte-level alphabet (byte_unicode.h) and split into characters;
// then the adjacent pair with the lowest merge rank (position in tokenizer.ggml.merges) is merged
// repeatedly (ties: leftmost first). With the Llama 3 pre-tokenizer a word that is a token by
// itself is emitted directly (Llama 3's ignore_merges). Invalid UTF-8 input is first repaired
// (invalid bytes -> U+FFFD) since the regexes need valid UTF-8.
// Decoding: each character of a token maps back to its byte.
// Thread-safety: immutable after construction; safe from any thread.
#pragma once

#include <memory>
#include <unordered_map>

#include "backends/tokenizer/pretokenizer.h"
#include "backends/tokenizer/tokenizer.h"

namespace llm {

class BpeTokenizer : public Tokenizer {
 public:
  // Throws TokenizerError for an unsupported pre-tokenizer or a malformed merge.
  explicit BpeTokenizer(Vocab vocab);

 protected:
  std::vector<int32_t> encode_text(std::string_view text) const override;
  std::string normal_piece(int32_t id) const override;

 private:
  void encode_word(std::string_view word, std::vector<int32_t>& out) const;
  int merge_rank(std::string_view left, std::string_view right, std::string& scratch) const;

  std::unique_ptr<Pretokenizer> pretokenizer_;
  bool ignore_merges_ = false;
  std::unordered_map<std::string, int> merge_ranks_;  // "left right" -> rank
};

}  // namespace llm
