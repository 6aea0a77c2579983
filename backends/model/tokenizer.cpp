#include "backends/model/tokenizer.h"

#include "backends/model/bpe_tokenizer.h"
#include "backends/model/gguf_reader.h"
#include "backends/model/spm_tokenizer.h"
#include "backends/model/streaming_detokenizer.h"

namespace llm {

std::unique_ptr<Tokenizer> Tokenizer::from_gguf(const GgufFile& file) {
  Vocab vocab = load_vocab(file);
  if (vocab.model == "llama") return std::make_unique<SpmTokenizer>(std::move(vocab));
  return std::make_unique<BpeTokenizer>(std::move(vocab));
}

std::unique_ptr<Tokenizer> Tokenizer::from_gguf_file(const std::string& path) {
  try {
    return from_gguf(GgufFile::open(path));
  } catch (const GgufError& e) {
    throw TokenizerError(e.what());
  }
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special_tokens,
                                         bool parse_special) const {
  (void)parse_special;  // TODO(tokenizer helper): split out special-token text
  std::vector<int32_t> ids;
  if (add_special_tokens && vocab_.add_bos && vocab_.bos_id >= 0) ids.push_back(vocab_.bos_id);
  std::vector<int32_t> body = encode_text(text);
  ids.insert(ids.end(), body.begin(), body.end());
  if (add_special_tokens && vocab_.add_eos && vocab_.eos_id >= 0) ids.push_back(vocab_.eos_id);
  return ids;
}

std::string Tokenizer::piece(int32_t id, bool skip_special_tokens) const {
  if (id < 0 || id >= vocab_.size()) {
    throw TokenizerError("token id " + std::to_string(id) + " is outside the vocabulary of " +
                         std::to_string(vocab_.size()));
  }
  switch (vocab_.type(id)) {
    case TokenType::kControl:
    case TokenType::kUnknown:
      return skip_special_tokens ? std::string() : vocab_.tokens[static_cast<size_t>(id)];
    case TokenType::kUserDefined:
      return vocab_.tokens[static_cast<size_t>(id)];
    default:
      return normal_piece(id);
  }
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  StreamingDetokenizer detok(*this, skip_special_tokens);
  std::string out;
  for (int32_t id : ids) out += detok.push(id);
  out += detok.flush();
  return out;
}

}  // namespace llm
