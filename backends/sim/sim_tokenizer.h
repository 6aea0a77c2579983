// A deterministic stand-in tokenizer for the simulated backend, until real tokenizers exist: text
// is split into word / punctuation / whitespace pieces, each hashed to an id (never the eos id), so
// prompt token counts are exact and stable; output ids map onto a synthetic English vocabulary so
// responses are readable. Also the mock model's natural output length (SimBackend asks it where a
// request without a scripted length stops).
// Thread-safety: immutable after construction; every method is safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace llm {

class SimTokenizer {
 public:
  // Ids are in [0, vocab_size); the last id is the end-of-sequence token (as in SimBackend).
  explicit SimTokenizer(int64_t vocab_size);

  int64_t vocab_size() const { return vocab_; }
  int32_t eos_token_id() const { return eos_; }

  // Pieces: an optional single leading space plus a run of letters/digits (at most 16 bytes), a
  // run of other whitespace, or one punctuation byte. One id per piece.
  std::vector<int32_t> encode(std::string_view text) const;
  // The text of one output id: a word from the synthetic vocabulary with a leading space, now and
  // then a punctuation mark; "" for eos.
  std::string_view piece(int32_t id) const;
  std::string decode(const std::vector<int32_t>& ids) const;

  // Where the mock model stops by itself: 8 + hash(prompt, seed) % 120 tokens.
  static int64_t natural_output_len(const std::vector<int32_t>& prompt, uint64_t seed);
  // The same from the prompt's hash (prompt_hash, which Request::prompt_salt holds).
  static int64_t natural_output_len(uint64_t prompt_hash, uint64_t seed);
  // Identity of a prompt's content (the sim backend's output tokens depend on it).
  static uint64_t prompt_hash(const std::vector<int32_t>& prompt);

 private:
  int64_t vocab_;
  int32_t eos_;
};

}  // namespace llm
