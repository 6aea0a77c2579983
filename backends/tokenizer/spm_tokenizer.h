// SentencePiece-style BPE over token scores (tokenizer.ggml.model = "llama", e.g. Llama 2).
// Encoding: spaces become "▁" (U+2581), a "▁" is prepended when add_space_prefix; the text is split
// into UTF-8 characters, then the adjacent pair whose concatenation is a vocabulary token with the
// highest score is merged repeatedly (ties: leftmost first). A character left without a token is
// emitted as byte-fallback tokens <0xXX> (one per byte; <unk> if the vocabulary lacks them).
// Decoding: "▁" -> space, <0xXX> -> the byte.
// Thread-safety: immutable after construction; safe from any thread.
#pragma once

#include <array>

#include "backends/tokenizer/tokenizer.h"

namespace llm {

class SpmTokenizer : public Tokenizer {
 public:
  explicit SpmTokenizer(Vocab vocab);

 protected:
  std::vector<int32_t> encode_text(std::string_view text) const override;
  std::string normal_piece(int32_t id) const override;

 private:
  void emit_bytes(std::string_view text, std::vector<int32_t>& out) const;
  std::array<int32_t, 256> byte_tokens_{};  // <0xXX> ids, -1 when absent
};

}  // namespace llm
