#include "backends/tokenizer/vocab.h"

#include "backends/formats/gguf_reader.h"

namespace llm {

int32_t Vocab::find(std::string_view text) const {
  const auto it = token_to_id.find(std::string(text));
  return it == token_to_id.end() ? -1 : it->second;
}

bool Vocab::is_special(int32_t id) const {
  const TokenType t = type(id);
  return t == TokenType::kControl || t == TokenType::kUnknown;
}

int32_t find_default_eot_id(const Vocab& vocab) {
  for (const char* text : {"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>"}) {
    const int32_t id = vocab.find(text);
    if (id >= 0) return id;
  }
  return -1;
}

namespace {

int32_t special_id(const GgufFile& f, const Vocab& v, const char* key, int32_t fallback) {
  const auto id = f.find_u32(key);
  if (!id) return fallback < v.size() ? fallback : -1;
  if (*id >= static_cast<uint32_t>(v.size())) {
    throw TokenizerError(f.name() + ": " + key + " = " + std::to_string(*id) +
                         " is outside the vocabulary of " + std::to_string(v.size()));
  }
  return static_cast<int32_t>(*id);
}

Vocab load(const GgufFile& f) {
  Vocab v;
  v.model = f.get_string("tokenizer.ggml.model");
  if (v.model != "llama" && v.model != "gpt2") {
    throw TokenizerError(f.name() + ": unsupported tokenizer model '" + v.model +
                         "' (supported: llama, gpt2)");
  }
  v.pre = f.find_string("tokenizer.ggml.pre").value_or("");
  v.tokens = f.get_string_array("tokenizer.ggml.tokens");
  if (v.tokens.empty()) throw TokenizerError(f.name() + ": tokenizer.ggml.tokens is empty");
  if (f.has("tokenizer.ggml.scores")) v.scores = f.get_f32_array("tokenizer.ggml.scores");
  if (!v.scores.empty() && v.scores.size() != v.tokens.size()) {
    throw TokenizerError(f.name() + ": tokenizer.ggml.scores has " +
                         std::to_string(v.scores.size()) + " entries for " +
                         std::to_string(v.tokens.size()) + " tokens");
  }
  if (v.scores.empty()) v.scores.assign(v.tokens.size(), 0.0f);
  v.types.assign(v.tokens.size(), TokenType::kNormal);
  if (f.has("tokenizer.ggml.token_type")) {
    const auto types = f.get_int_array("tokenizer.ggml.token_type");
    if (types.size() != v.tokens.size()) {
      throw TokenizerError(f.name() + ": tokenizer.ggml.token_type has " +
                           std::to_string(types.size()) + " entries for " +
                           std::to_string(v.tokens.size()) + " tokens");
    }
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i] < 0 || types[i] > 6) {
        throw TokenizerError(f.name() + ": token " + std::to_string(i) + " has unknown type " +
                             std::to_string(types[i]));
      }
      v.types[i] = static_cast<TokenType>(types[i]);
    }
  }
  if (f.has("tokenizer.ggml.merges")) v.merges = f.get_string_array("tokenizer.ggml.merges");
  if (v.model == "gpt2" && v.merges.empty()) {
    throw TokenizerError(f.name() + ": gpt2 tokenizer without tokenizer.ggml.merges");
  }
  v.token_to_id.reserve(v.tokens.size());
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    v.token_to_id.emplace(v.tokens[i], static_cast<int32_t>(i));  // first occurrence wins
  }

  const bool spm = v.model == "llama";
  // Defaults when the metadata is silent: SentencePiece Llama uses <unk>=0, <s>=1, </s>=2.
  v.bos_id = special_id(f, v, "tokenizer.ggml.bos_token_id", spm ? 1 : -1);
  v.eos_id = special_id(f, v, "tokenizer.ggml.eos_token_id", spm ? 2 : -1);
  v.unk_id = special_id(f, v, "tokenizer.ggml.unknown_token_id", spm ? 0 : -1);
  v.pad_id = special_id(f, v, "tokenizer.ggml.padding_token_id", -1);
  v.eot_id = special_id(f, v, "tokenizer.ggml.eot_token_id", -1);
  if (v.eot_id < 0) v.eot_id = find_default_eot_id(v);
  // When add_bos_token is absent: SentencePiece Llama and Llama 3 add BOS (as their Hugging Face
  // tokenizers do); GPT-2 and Qwen2 do not.
  const bool llama3 = v.pre == "llama-bpe" || v.pre == "llama3";
  v.add_bos = f.find_bool("tokenizer.ggml.add_bos_token").value_or(spm || llama3);
  v.add_eos = f.find_bool("tokenizer.ggml.add_eos_token").value_or(false);
  v.add_space_prefix = f.find_bool("tokenizer.ggml.add_space_prefix").value_or(spm);
  return v;
}

}  // namespace

Vocab load_vocab(const GgufFile& file) {
  try {
    return load(file);
  } catch (const GgufError& e) {
    throw TokenizerError(e.what());
  }
}

}  // namespace llm
