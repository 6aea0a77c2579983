// Hugging Face tokenizer files <-> Vocab: tokenizer.json (the `tokenizers` library's format) and
// the tokenizer_config.json beside it (bos/eos/unk/pad tokens, add_bos_token, chat_template).
//
// Read shapes (what Hugging Face writes for our model families):
//  - byte-level BPE (GPT-2, Llama 3, Qwen2): pre_tokenizer ByteLevel(use_regex) alone, or a
//    Sequence of Split(Regex) + ByteLevel(use_regex false), the regex being one of ours
//    (pretokenizer.h: gpt2, llama-bpe, qwen2); normalizer null or NFC (accepted, not applied,
//    as llama.cpp does not apply it either).
//  - SentencePiece-style BPE (Llama 2): model.byte_fallback, normalizer Sequence[Prepend("▁"),
//    Replace(" ", "▁")] or pre_tokenizer Metaspace (split false). Its merges become scores: a token
//    scores -(rank of the first merge that creates it), tokens no merge creates score below all.
//  - model {type BPE, vocab {text: id}, merges as "a b" strings or [a, b] pairs}; added_tokens
//    with `special` (special -> control token, else user-defined); model.unk_token -> unknown.
//  - bos/eos/add_bos_token from tokenizer_config.json, else from a TemplateProcessing
//    post_processor; the chat template from tokenizer_config.json's chat_template (a string, or
//    the "default" entry of a list) or a chat_template.jinja file beside.
// Anything else is a TokenizerError naming the file and the JSON field.
//
// Written shapes: the same (Llama 2's normalizer form; merges of a SentencePiece vocabulary are
// generated as Hugging Face's converter does: every split of a token into two vocabulary pieces,
// ordered by the token's score), so reading back gives identical encode/decode results.
// Thread-safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tokenizer/vocab.h"

namespace llm {

// SentencePiece's space, "▁" (U+2581), as tokenizer.json's Metaspace, Prepend and Replace steps
// write it.
inline constexpr const char* kMetaspaceMark = "\xE2\x96\x81";

struct HfTokenizerData {
  Vocab vocab;
  std::string chat_template;  // "" when none
};

// `name` names the tokenizer.json in error messages; `config_json` is tokenizer_config.json's
// text when there is one (its errors name `config_name`).
HfTokenizerData parse_hf_tokenizer(std::string_view tokenizer_json, const std::string& name,
                                   std::optional<std::string_view> config_json = std::nullopt,
                                   const std::string& config_name = "tokenizer_config.json");
// Reads `path` and, when present, tokenizer_config.json and chat_template.jinja beside it.
HfTokenizerData read_hf_tokenizer_files(const std::string& path);

// The texts of tokenizer.json and tokenizer_config.json for a vocabulary.
std::string hf_tokenizer_json_text(const Vocab& vocab);
std::string hf_tokenizer_config_text(const Vocab& vocab, const std::string& chat_template);
// Writes `path` (tokenizer.json) and tokenizer_config.json in the same directory, each through a
// PendingFile (core/pending_file.h); std::runtime_error naming the file when one cannot be written.
// Returns the two paths.
std::vector<std::string> write_hf_tokenizer_files(const Vocab& vocab,
                                                  const std::string& chat_template,
                                                  const std::string& path);

}  // namespace llm
