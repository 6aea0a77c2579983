// Tokenizer: text <-> token ids for the vocabularies of GGUF files and Hugging Face tokenizer.json
// (hf_tokenizer.h). tokenizer.ggml.model "llama" selects SentencePiece-style BPE (SpmTokenizer),
// "gpt2" byte-level BPE (BpeTokenizer).
//
// encode(text, add_special_tokens, parse_special): with add_special_tokens, BOS is prepended when
// tokenizer.ggml.add_bos_token says so (and EOS appended per add_eos_token). Without
// parse_special, special-token text in `text` is tokenized as plain text. With it, the texts of
// control, user-defined and unknown tokens become their ids as llama.cpp does: longest token
// text first, every occurrence, then the next longest in what is left; each text fragment between
// them is tokenized on its own (so with SentencePiece every fragment gets the "▁" prefix, as after
// a special token in llama.cpp and in Hugging Face's legacy Llama tokenizer: "<s>[INST]" ->
// <s>, "▁[", "INST", "]").
// decode(ids, skip_special_tokens): concatenates the token pieces (control and unknown tokens are
// dropped when skip_special_tokens); when the vocabulary adds a space prefix (SentencePiece), one
// leading space of the first emitted piece is removed, so decode(encode(text)) == text. Invalid
// UTF-8 in the result (e.g. an incomplete byte-fallback sequence) becomes U+FFFD.
// Thread-safety: immutable after construction; encode/decode are safe from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tokenizer/vocab.h"

namespace llm {

class GgufFile;

class Tokenizer {
 public:
  // Throws TokenizerError (unsupported model or pre-tokenizer, inconsistent metadata).
  static std::unique_ptr<Tokenizer> from_gguf(const GgufFile& file);
  // Opens the file too; a GgufError is reported as a TokenizerError.
  static std::unique_ptr<Tokenizer> from_gguf_file(const std::string& path);
  // A Hugging Face tokenizer.json (byte-level BPE of GPT-2/Llama 3/Qwen2, or Llama 2's
  // SentencePiece-style BPE with byte fallback). A tokenizer_config.json beside it, when present,
  // supplies bos/eos tokens, add_bos_token and the chat template. Throws TokenizerError naming the
  // file and the JSON field.
  static std::unique_ptr<Tokenizer> from_tokenizer_json(const std::string& path);

  virtual ~Tokenizer() = default;

  // parse_special: the text of special tokens (control and user-defined tokens such as "<s>",
  // "<|eot_id|>", "<|im_start|>") inside `text` becomes their ids, as in a rendered chat prompt;
  // otherwise such text is tokenized as plain text.
  std::vector<int32_t> encode(std::string_view text, bool add_special_tokens,
                              bool parse_special = false) const;
  std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens = true) const;

  // The raw bytes of one token (no leading-space rule, no UTF-8 repair); empty for a special token
  // when skip_special_tokens. Throws TokenizerError for an id outside the vocabulary.
  std::string piece(int32_t id, bool skip_special_tokens) const;

  // The chat template text (Jinja source) from the model's metadata (GGUF tokenizer.chat_template,
  // or tokenizer_config.json's chat_template); "" when the model has none.
  const std::string& chat_template_text() const { return chat_template_text_; }

  const Vocab& vocab() const { return vocab_; }
  int32_t vocab_size() const { return vocab_.size(); }
  int32_t bos_id() const { return vocab_.bos_id; }
  int32_t eos_id() const { return vocab_.eos_id; }
  int32_t eot_id() const { return vocab_.eot_id; }
  int32_t unk_id() const { return vocab_.unk_id; }
  int32_t pad_id() const { return vocab_.pad_id; }
  // Whether decode strips one leading space from the first piece.
  bool strips_leading_space() const { return vocab_.add_space_prefix; }

 protected:
  explicit Tokenizer(Vocab vocab);
  // Tokens of plain text, without special tokens.
  virtual std::vector<int32_t> encode_text(std::string_view text) const = 0;
  // Bytes of a normal (non-special) token.
  virtual std::string normal_piece(int32_t id) const = 0;

  Vocab vocab_;
  std::string chat_template_text_;

 private:
  // Appends the tokens of `text`, splitting out special-token text.
  void encode_parsing_special(std::string_view text, std::vector<int32_t>& out) const;

  std::vector<int32_t> special_by_length_;  // control/user-defined/unknown ids, longest text first
};

// Loads the tokenizer of a model path: a .gguf file (its tokenizer.ggml.* metadata), a
// tokenizer.json file, or a directory holding tokenizer.json. Throws TokenizerError.
std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path);

// Writes a Hugging Face tokenizer.json (and tokenizer_config.json beside it, with bos/eos,
// add_bos_token and the chat template) that from_tokenizer_json reads back into a tokenizer
// with identical encode/decode results.
void write_tokenizer_json(const Tokenizer& tokenizer, const std::string& path);

}  // namespace llm
