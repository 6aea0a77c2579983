// A tokenizer vocabulary as stored in GGUF metadata (tokenizer.ggml.*): token texts, scores, token
// types, merges, special-token ids and the flags that drive encoding.
// Thread-safety: immutable after loading; safe to share between threads.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llm {

class GgufFile;

// A vocabulary or tokenizer that cannot be loaded or used (message says why).
class TokenizerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// tokenizer.ggml.token_type values (llama.cpp's token types).
enum class TokenType : int32_t {
  kUndefined = 0,
  kNormal = 1,
  kUnknown = 2,
  kControl = 3,
  kUserDefined = 4,
  kUnused = 5,
  kByte = 6,
};

struct Vocab {
  std::string model;  // tokenizer.ggml.model: "llama" or "gpt2"
  std::string pre;    // tokenizer.ggml.pre ("" when absent)
  std::vector<std::string> tokens;
  std::vector<float> scores;     // empty when absent
  std::vector<TokenType> types;  // kNormal when absent
  std::vector<std::string> merges;
  std::unordered_map<std::string, int32_t> token_to_id;

  int32_t bos_id = -1;
  int32_t eos_id = -1;
  int32_t eot_id = -1;
  int32_t unk_id = -1;
  int32_t pad_id = -1;
  bool add_bos = false;
  bool add_eos = false;
  bool add_space_prefix = false;

  int32_t size() const { return static_cast<int32_t>(tokens.size()); }
  int32_t find(std::string_view text) const;  // -1 when absent
  TokenType type(int32_t id) const { return types[static_cast<size_t>(id)]; }
  bool is_special(int32_t id) const;  // control or unknown
};

// The end-of-turn token of the common chat formats ("<|eot_id|>", "<|im_end|>", "<|end|>",
// "<end_of_turn>") when the vocabulary has one, else -1; used when the metadata names none.
int32_t find_default_eot_id(const Vocab& vocab);

// Reads tokenizer.ggml.* from the file. Throws TokenizerError naming the file and the problem.
Vocab load_vocab(const GgufFile& file);

}  // namespace llm
