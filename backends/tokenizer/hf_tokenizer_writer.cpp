// Writing a Vocab as Hugging Face tokenizer.json + tokenizer_config.json (see hf_tokenizer.h).
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <tuple>

#include "backends/tokenizer/hf_tokenizer.h"
#include "backends/tokenizer/pretokenizer.h"
#include "backends/tokenizer/utf8.h"
#include "core/pending_file.h"

namespace llm {

namespace {

using ojson = nlohmann::ordered_json;

std::string quoted(const std::string& s, int32_t id) {
  if (!utf8_is_valid(s)) {
    throw TokenizerError("token " + std::to_string(id) +
                         " is not valid UTF-8; it cannot be written to tokenizer.json");
  }
  return ojson(s).dump();
}

bool is_added(TokenType t) {
  return t == TokenType::kControl || t == TokenType::kUnknown || t == TokenType::kUserDefined;
}

// Merges of a SentencePiece vocabulary as Hugging Face's converter makes them: every split of a
// token (at a character boundary) into two pieces that are both tokens, ordered by the token's
// score (highest first), then by token id and the pieces' ids.
std::vector<std::string> spm_merges(const Vocab& v) {
  struct Merge {
    float score;
    int32_t id, left, right;
  };
  std::vector<Merge> merges;
  for (int32_t id = 0; id < v.size(); ++id) {
    const std::string& text = v.tokens[static_cast<size_t>(id)];
    for (size_t cut = utf8_lead_len(static_cast<uint8_t>(text[0])); cut < text.size();
         cut += utf8_lead_len(static_cast<uint8_t>(text[cut]))) {
      const int32_t left = v.find(std::string_view(text).substr(0, cut));
      const int32_t right = v.find(std::string_view(text).substr(cut));
      if (left >= 0 && right >= 0)
        merges.push_back({v.scores[static_cast<size_t>(id)], id, left, right});
    }
  }
  std::sort(merges.begin(), merges.end(), [](const Merge& a, const Merge& b) {
    return std::make_tuple(-a.score, a.id, a.left, a.right) <
           std::make_tuple(-b.score, b.id, b.left, b.right);
  });
  std::vector<std::string> out;
  out.reserve(merges.size());
  for (const Merge& m : merges) {
    out.push_back(v.tokens[static_cast<size_t>(m.left)] + " " +
                  v.tokens[static_cast<size_t>(m.right)]);
  }
  return out;
}

PretokenizerKind byte_level_kind(const Vocab& v) {
  try {
    return pretokenizer_kind_from_name(v.pre);
  } catch (const std::exception& e) {
    throw TokenizerError(e.what());
  }
}

ojson byte_level(bool use_regex, bool trim_offsets) {
  return ojson{{"type", "ByteLevel"},
               {"add_prefix_space", false},
               {"trim_offsets", trim_offsets},
               {"use_regex", use_regex}};
}

ojson special_token_ref(const Vocab& v, int32_t id) {
  return ojson{{"SpecialToken", {{"id", v.tokens[static_cast<size_t>(id)]}, {"type_id", 0}}}};
}

// TemplateProcessing adding BOS/EOS as the vocabulary says (null when it adds neither).
ojson post_processor(const Vocab& v) {
  const bool bos = v.add_bos && v.bos_id >= 0;
  const bool eos = v.add_eos && v.eos_id >= 0;
  if (!bos && !eos) return nullptr;
  ojson single = ojson::array(), pair = ojson::array(), specials = ojson::object();
  const auto add_special = [&](int32_t id) {
    const std::string& text = v.tokens[static_cast<size_t>(id)];
    specials[text] = {{"id", text}, {"ids", {id}}, {"tokens", {text}}};
  };
  const auto sequence = [](const char* name) {
    return ojson{{"Sequence", {{"id", name}, {"type_id", 0}}}};
  };
  for (const char* seq : {"A", "B"}) {
    ojson& out = seq[0] == 'A' ? single : pair;
    if (bos) out.push_back(special_token_ref(v, v.bos_id));
    out.push_back(sequence(seq));
    if (eos) out.push_back(special_token_ref(v, v.eos_id));
  }
  // "pair" is A then B, each with its own BOS/EOS.
  ojson full_pair = single;
  for (const auto& item : pair) full_pair.push_back(item);
  if (bos) add_special(v.bos_id);
  if (eos) add_special(v.eos_id);
  return ojson{{"type", "TemplateProcessing"},
               {"single", single},
               {"pair", full_pair},
               {"special_tokens", specials}};
}

}  // namespace

std::string hf_tokenizer_json_text(const Vocab& v) {
  const bool spm = v.model == "llama";
  if (!spm && v.model != "gpt2") {
    throw TokenizerError("cannot write tokenizer.json for tokenizer model '" + v.model + "'");
  }
  ojson normalizer, pre_tokenizer, decoder;
  if (spm) {
    ojson parts = ojson::array();
    if (v.add_space_prefix) parts.push_back({{"type", "Prepend"}, {"prepend", kMetaspaceMark}});
    parts.push_back(
        {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kMetaspaceMark}});
    normalizer = {{"type", "Sequence"}, {"normalizers", parts}};
    pre_tokenizer = nullptr;
    ojson decoders = ojson::array();
    decoders.push_back(
        {{"type", "Replace"}, {"pattern", {{"String", kMetaspaceMark}}}, {"content", " "}});
    decoders.push_back({{"type", "ByteFallback"}});
    decoders.push_back({{"type", "Fuse"}});
    if (v.add_space_prefix) {
      decoders.push_back({{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}});
    }
    decoder = {{"type", "Sequence"}, {"decoders", decoders}};
  } else {
    const PretokenizerKind kind = byte_level_kind(v);
    normalizer = kind == PretokenizerKind::kQwen2 ? ojson{{"type", "NFC"}} : ojson(nullptr);
    if (kind == PretokenizerKind::kGpt2) {
      pre_tokenizer = byte_level(true, true);
    } else {
      ojson split = {{"type", "Split"},
                     {"pattern", {{"Regex", pretokenizer_regex(kind)}}},
                     {"behavior", "Isolated"},
                     {"invert", false}};
      pre_tokenizer = {{"type", "Sequence"},
                       {"pretokenizers", ojson::array({split, byte_level(false, true)})}};
    }
    decoder = byte_level(true, true);
  }
  ojson post = post_processor(v);
  if (post.is_null() && !spm) post = byte_level(true, false);

  std::string out = "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n";
  out += "  \"added_tokens\": [";
  bool first = true;
  for (int32_t id = 0; id < v.size(); ++id) {
    const TokenType t = v.type(id);
    if (!is_added(t)) continue;
    out += first ? "\n    " : ",\n    ";
    first = false;
    out += "{\"id\": " + std::to_string(id) +
           ", \"content\": " + quoted(v.tokens[static_cast<size_t>(id)], id) +
           ", \"single_word\": false, \"lstrip\": false, \"rstrip\": false, \"normalized\": false"
           ", \"special\": " +
           (t == TokenType::kUserDefined ? "false" : "true") + "}";
  }
  out += first ? "],\n" : "\n  ],\n";
  out += "  \"normalizer\": " + normalizer.dump() + ",\n";
  out += "  \"pre_tokenizer\": " + pre_tokenizer.dump() + ",\n";
  out += "  \"post_processor\": " + post.dump() + ",\n";
  out += "  \"decoder\": " + decoder.dump() + ",\n";
  const bool llama3 = !spm && byte_level_kind(v) == PretokenizerKind::kLlama3;
  const std::string unk =
      spm && v.unk_id >= 0 ? quoted(v.tokens[static_cast<size_t>(v.unk_id)], v.unk_id) : "null";
  out +=
      "  \"model\": {\n    \"type\": \"BPE\",\n    \"dropout\": null,\n    \"unk_token\": " + unk +
      ",\n    \"continuing_subword_prefix\": null,\n    \"end_of_word_suffix\": null,\n"
      "    \"fuse_unk\": " +
      (spm ? "true" : "false") + ",\n    \"byte_fallback\": " + (spm ? "true" : "false") +
      ",\n    \"ignore_merges\": " + (llama3 ? "true" : "false") + ",\n    \"vocab\": {";
  // SentencePiece vocabularies list every token (specials too, as Llama 2's file does);
  // byte-level ones leave the added tokens to added_tokens (as Llama 3's and Qwen2's do).
  first = true;
  for (int32_t id = 0; id < v.size(); ++id) {
    if (!spm && is_added(v.type(id))) continue;
    out += first ? "\n      " : ",\n      ";
    first = false;
    out += quoted(v.tokens[static_cast<size_t>(id)], id) + ": " + std::to_string(id);
  }
  out += "\n    },\n    \"merges\": [";
  const std::vector<std::string> merges = spm ? spm_merges(v) : v.merges;
  for (size_t i = 0; i < merges.size(); ++i) {
    out += i ? ",\n      " : "\n      ";
    out += quoted(merges[i], -1);
  }
  out += merges.empty() ? "]\n  }\n}\n" : "\n    ]\n  }\n}\n";
  return out;
}

std::string hf_tokenizer_config_text(const Vocab& v, const std::string& chat_template) {
  const auto token = [&](int32_t id) -> ojson {
    if (id < 0) return nullptr;
    return v.tokens[static_cast<size_t>(id)];
  };
  ojson config = {{"add_bos_token", v.add_bos},
                  {"add_eos_token", v.add_eos},
                  {"bos_token", token(v.bos_id)},
                  {"eos_token", token(v.eos_id)},
                  {"unk_token", token(v.unk_id)},
                  {"pad_token", token(v.pad_id)},
                  {"clean_up_tokenization_spaces", false},
                  {"tokenizer_class", "PreTrainedTokenizerFast"}};
  if (!chat_template.empty()) config["chat_template"] = chat_template;
  return config.dump(2) + "\n";
}

std::vector<std::string> write_hf_tokenizer_files(const Vocab& vocab,
                                                  const std::string& chat_template,
                                                  const std::string& path) {
  const std::filesystem::path p(path);
  const std::filesystem::path config = p.parent_path() / "tokenizer_config.json";
  write_file_atomically(p, hf_tokenizer_json_text(vocab));
  write_file_atomically(config, hf_tokenizer_config_text(vocab, chat_template));
  return {p.string(), config.string()};
}

}  // namespace llm
