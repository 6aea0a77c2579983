#include "backends/tokenizer/tokenizer.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "backends/formats/gguf_reader.h"
#include "backends/tokenizer/bpe_tokenizer.h"
#include "backends/tokenizer/hf_tokenizer.h"
#include "backends/tokenizer/spm_tokenizer.h"
#include "backends/tokenizer/streaming_detokenizer.h"

namespace llm {

Tokenizer::Tokenizer(Vocab vocab) : vocab_(std::move(vocab)) {
  for (int32_t id = 0; id < vocab_.size(); ++id) {
    const TokenType t = vocab_.type(id);
    const bool special =
        t == TokenType::kControl || t == TokenType::kUserDefined || t == TokenType::kUnknown;
    if (special && !vocab_.tokens[static_cast<size_t>(id)].empty()) {
      special_by_length_.push_back(id);
    }
  }
  std::stable_sort(special_by_length_.begin(), special_by_length_.end(), [&](int32_t a, int32_t b) {
    return vocab_.tokens[static_cast<size_t>(a)].size() >
           vocab_.tokens[static_cast<size_t>(b)].size();
  });
}

std::unique_ptr<Tokenizer> Tokenizer::from_gguf(const GgufFile& file) {
  Vocab vocab = load_vocab(file);
  std::unique_ptr<Tokenizer> tokenizer;
  if (vocab.model == "llama") {
    tokenizer = std::make_unique<SpmTokenizer>(std::move(vocab));
  } else {
    tokenizer = std::make_unique<BpeTokenizer>(std::move(vocab));
  }
  try {
    tokenizer->chat_template_text_ = file.find_string("tokenizer.chat_template").value_or("");
  } catch (const GgufError& e) {
    throw TokenizerError(e.what());
  }
  return tokenizer;
}

std::unique_ptr<Tokenizer> Tokenizer::from_gguf_file(const std::string& path) {
  try {
    return from_gguf(GgufFile::open(path));
  } catch (const GgufError& e) {
    throw TokenizerError(e.what());
  }
}

std::unique_ptr<Tokenizer> Tokenizer::from_tokenizer_json(const std::string& path) {
  HfTokenizerData data = read_hf_tokenizer_files(path);
  std::unique_ptr<Tokenizer> tokenizer;
  try {
    if (data.vocab.model == "llama") {
      tokenizer = std::make_unique<SpmTokenizer>(std::move(data.vocab));
    } else {
      tokenizer = std::make_unique<BpeTokenizer>(std::move(data.vocab));
    }
  } catch (const TokenizerError& e) {
    throw TokenizerError(path + ": " + e.what());
  }
  tokenizer->chat_template_text_ = std::move(data.chat_template);
  return tokenizer;
}

std::unique_ptr<Tokenizer> load_tokenizer(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    const fs::path json = fs::path(path) / "tokenizer.json";
    if (!fs::exists(json, ec)) {
      throw TokenizerError(path + ": directory holds no tokenizer.json");
    }
    return Tokenizer::from_tokenizer_json(json.string());
  }
  if (!fs::exists(path, ec)) throw TokenizerError(path + ": no such file or directory");
  // GGUF by its magic, whatever the extension; anything else is read as tokenizer.json.
  char magic[4] = {};
  std::ifstream f(path, std::ios::binary);
  f.read(magic, sizeof(magic));
  if (f.gcount() == 4 && std::memcmp(magic, "GGUF", 4) == 0) {
    return Tokenizer::from_gguf_file(path);
  }
  return Tokenizer::from_tokenizer_json(path);
}

void write_tokenizer_json(const Tokenizer& tokenizer, const std::string& path) {
  write_hf_tokenizer_files(tokenizer.vocab(), tokenizer.chat_template_text(), path);
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special_tokens,
                                       bool parse_special) const {
  std::vector<int32_t> ids;
  if (add_special_tokens && vocab_.add_bos && vocab_.bos_id >= 0) ids.push_back(vocab_.bos_id);
  if (parse_special) {
    encode_parsing_special(text, ids);
  } else {
    std::vector<int32_t> body = encode_text(text);
    ids.insert(ids.end(), body.begin(), body.end());
  }
  if (add_special_tokens && vocab_.add_eos && vocab_.eos_id >= 0) ids.push_back(vocab_.eos_id);
  return ids;
}

void Tokenizer::encode_parsing_special(std::string_view text, std::vector<int32_t>& out) const {
  // A fragment is either text still to tokenize (id < 0) or one special token.
  struct Fragment {
    std::string_view text;
    int32_t id;
  };
  std::vector<Fragment> fragments{{text, -1}};
  std::vector<Fragment> next;
  for (const int32_t id : special_by_length_) {
    const std::string_view special = vocab_.tokens[static_cast<size_t>(id)];
    if (special.size() > text.size()) continue;
    bool found = false;
    next.clear();
    for (const Fragment& f : fragments) {
      if (f.id >= 0 || f.text.size() < special.size()) {
        next.push_back(f);
        continue;
      }
      std::string_view rest = f.text;
      for (size_t at; (at = rest.find(special)) != std::string_view::npos;) {
        found = true;
        if (at > 0) next.push_back({rest.substr(0, at), -1});
        next.push_back({special, id});
        rest.remove_prefix(at + special.size());
      }
      if (!rest.empty()) next.push_back({rest, -1});
    }
    if (found) fragments.swap(next);
  }
  for (const Fragment& f : fragments) {
    if (f.id >= 0) {
      out.push_back(f.id);
    } else {
      std::vector<int32_t> body = encode_text(f.text);
      out.insert(out.end(), body.begin(), body.end());
    }
  }
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
