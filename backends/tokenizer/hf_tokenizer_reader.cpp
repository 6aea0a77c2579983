// Reading Hugging Face tokenizer.json + tokenizer_config.json into a Vocab (see hf_tokenizer.h).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backends/tokenizer/hf_tokenizer.h"
#include "backends/tokenizer/pretokenizer.h"

namespace llm {

namespace {

using nlohmann::json;

constexpr int64_t kMaxTokens = 16 * 1024 * 1024;

// Errors name the file and the JSON field.
struct Where {
  const std::string& file;
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw TokenizerError(file + ": " + field + ": " + what);
  }
};

json parse_json(std::string_view text, const std::string& file) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    throw TokenizerError(file + ": not valid JSON (" + e.what() + ")");
  }
}

const json* member(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

// A member that must be present and of the given kind.
const json& require(const Where& w, const json& obj, const char* key, json::value_t kind,
                    const std::string& path, const char* kind_name) {
  const json* v = member(obj, key);
  if (v == nullptr) w.fail(path, "missing");
  const bool ok =
      kind == json::value_t::number_integer ? v->is_number_integer() : v->type() == kind;
  if (!ok) w.fail(path, std::string("must be ") + kind_name);
  return *v;
}

std::string string_member(const Where& w, const json& obj, const char* key,
                          const std::string& path) {
  return require(w, obj, key, json::value_t::string, path, "a string").get<std::string>();
}

bool bool_member(const Where& w, const json& obj, const char* key, const std::string& path,
                 bool fallback) {
  const json* v = member(obj, key);
  if (v == nullptr || v->is_null()) return fallback;
  if (!v->is_boolean()) w.fail(path, "must be true or false");
  return v->get<bool>();
}

// The components of a normalizer / pre_tokenizer / post_processor, Sequences flattened; each with
// its JSON path for errors.
void flatten(const json& node, const char* list_key, const std::string& path,
             std::vector<std::pair<const json*, std::string>>& out, const Where& w) {
  if (node.is_null()) return;
  if (!node.is_object()) w.fail(path, "must be an object or null");
  const json* type = member(node, "type");
  if (type == nullptr || !type->is_string()) w.fail(path + ".type", "missing or not a string");
  if (*type == "Sequence") {
    const json& list =
        require(w, node, list_key, json::value_t::array, path + "." + list_key, "an array");
    for (size_t i = 0; i < list.size(); ++i) {
      flatten(list[i], list_key, path + "." + list_key + "[" + std::to_string(i) + "]", out, w);
    }
    return;
  }
  out.emplace_back(&node, path);
}

// How the text is split and normalized before BPE.
struct Shape {
  bool byte_level = false;
  bool byte_level_regex = false;  // ByteLevel.use_regex: the GPT-2 pattern
  std::optional<std::string> split_regex;
  std::string split_path;
  bool prepend_space = false;  // Prepend("▁") or Metaspace prepend
  bool replace_space = false;  // Replace(" ", "▁")
  bool metaspace = false;
};

void read_normalizer(const Where& w, const json& root, Shape& s) {
  const json* node = member(root, "normalizer");
  if (node == nullptr) return;
  std::vector<std::pair<const json*, std::string>> parts;
  flatten(*node, "normalizers", "normalizer", parts, w);
  for (const auto& [n, path] : parts) {
    const std::string type = (*n)["type"].get<std::string>();
    if (type == "NFC") continue;  // accepted, not applied (see hf_tokenizer.h)
    if (type == "Prepend") {
      if (string_member(w, *n, "prepend", path + ".prepend") != kMetaspaceMark) {
        w.fail(path + ".prepend", "only Prepend(\"\u2581\") is supported");
      }
      s.prepend_space = true;
    } else if (type == "Replace") {
      const json& pattern =
          require(w, *n, "pattern", json::value_t::object, path + ".pattern", "an object");
      const json* str = member(pattern, "String");
      if (str == nullptr || *str != " " ||
          string_member(w, *n, "content", path + ".content") != kMetaspaceMark) {
        w.fail(path, "only Replace(\" \", \"\u2581\") is supported");
      }
      s.replace_space = true;
    } else {
      w.fail(path + ".type", "unsupported normalizer type '" + type +
                                 "' (supported: NFC, Prepend, Replace, Sequence)");
    }
  }
}

void read_pre_tokenizer(const Where& w, const json& root, Shape& s) {
  const json* node = member(root, "pre_tokenizer");
  if (node == nullptr) return;
  std::vector<std::pair<const json*, std::string>> parts;
  flatten(*node, "pretokenizers", "pre_tokenizer", parts, w);
  for (const auto& [n, path] : parts) {
    const std::string type = (*n)["type"].get<std::string>();
    if (type == "ByteLevel") {
      if (bool_member(w, *n, "add_prefix_space", path + ".add_prefix_space", false)) {
        w.fail(path + ".add_prefix_space", "ByteLevel with add_prefix_space is not supported");
      }
      s.byte_level = true;
      s.byte_level_regex = bool_member(w, *n, "use_regex", path + ".use_regex", true);
    } else if (type == "Split") {
      if (s.split_regex) w.fail(path, "more than one Split is not supported");
      const json& pattern =
          require(w, *n, "pattern", json::value_t::object, path + ".pattern", "an object");
      const json* regex = member(pattern, "Regex");
      if (regex == nullptr || !regex->is_string()) {
        w.fail(path + ".pattern", "only a Regex pattern is supported");
      }
      const json* behavior = member(*n, "behavior");
      if (behavior != nullptr && *behavior != "Isolated") {
        w.fail(path + ".behavior", "only \"Isolated\" is supported");
      }
      if (bool_member(w, *n, "invert", path + ".invert", false)) {
        w.fail(path + ".invert", "an inverted Split is not supported");
      }
      s.split_regex = regex->get<std::string>();
      s.split_path = path + ".pattern.Regex";
    } else if (type == "Metaspace") {
      const json* repl = member(*n, "replacement");
      if (repl != nullptr && *repl != kMetaspaceMark) {
        w.fail(path + ".replacement", "only \"\u2581\" is supported");
      }
      if (bool_member(w, *n, "split", path + ".split", false)) {
        w.fail(path + ".split", "a Metaspace that splits words is not supported");
      }
      s.metaspace = true;
      const json* scheme = member(*n, "prepend_scheme");
      if (scheme != nullptr && scheme->is_string()) {
        s.prepend_space = *scheme != "never";
      } else {
        s.prepend_space = bool_member(w, *n, "add_prefix_space", path + ".add_prefix_space", true);
      }
    } else {
      w.fail(path + ".type", "unsupported pre-tokenizer type '" + type +
                                 "' (supported: ByteLevel, Split, Metaspace, Sequence)");
    }
  }
}

// Which of our pre-tokenizers a Split regex is.
std::string pre_name_for_regex(const Where& w, const Shape& s) {
  struct Known {
    PretokenizerKind kind;
    const char* name;
  };
  for (const Known k :
       {Known{PretokenizerKind::kGpt2, "gpt2"}, Known{PretokenizerKind::kLlama3, "llama-bpe"},
        Known{PretokenizerKind::kQwen2, "qwen2"}}) {
    if (*s.split_regex == pretokenizer_regex(k.kind)) return k.name;
  }
  w.fail(s.split_path, "unknown pre-tokenizer regex '" + *s.split_regex +
                           "' (known: the patterns of gpt2, llama-bpe and qwen2)");
}

// Token texts by id from model.vocab and added_tokens; returns the added tokens' special flags.
std::vector<std::pair<int32_t, bool>> read_tokens(const Where& w, const json& root,
                                                  const json& model, Vocab& v) {
  std::vector<std::optional<std::string>> by_id;
  const auto put = [&](const json& id, const std::string& text, const std::string& path) {
    if (!id.is_number_integer()) w.fail(path, "must be an integer id");
    const int64_t n = id.get<int64_t>();
    if (n < 0 || n >= kMaxTokens) w.fail(path, "id " + std::to_string(n) + " is out of range");
    if (static_cast<size_t>(n) >= by_id.size()) by_id.resize(static_cast<size_t>(n) + 1);
    auto& slot = by_id[static_cast<size_t>(n)];
    if (slot && *slot != text) {
      w.fail(path, "id " + std::to_string(n) + " is both '" + *slot + "' and '" + text + "'");
    }
    slot = text;
  };
  const json& vocab = require(w, model, "vocab", json::value_t::object, "model.vocab", "an object");
  for (const auto& [text, id] : vocab.items()) put(id, text, "model.vocab[\"" + text + "\"]");

  std::vector<std::pair<int32_t, bool>> added;
  if (const json* list = member(root, "added_tokens"); list != nullptr && !list->is_null()) {
    if (!list->is_array()) w.fail("added_tokens", "must be an array");
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string path = "added_tokens[" + std::to_string(i) + "]";
      const json& t = (*list)[i];
      const json& id =
          require(w, t, "id", json::value_t::number_integer, path + ".id", "an integer");
      put(id, string_member(w, t, "content", path + ".content"), path + ".id");
      added.emplace_back(id.get<int32_t>(), bool_member(w, t, "special", path + ".special", false));
    }
  }
  if (by_id.empty()) w.fail("model.vocab", "is empty");
  v.tokens.reserve(by_id.size());
  for (size_t i = 0; i < by_id.size(); ++i) {
    if (!by_id[i]) w.fail("model.vocab", "no token has id " + std::to_string(i));
    v.tokens.push_back(std::move(*by_id[i]));
  }
  return added;
}

std::vector<std::string> read_merges(const Where& w, const json& model) {
  const json& list = require(w, model, "merges", json::value_t::array, "model.merges", "an array");
  std::vector<std::string> merges;
  merges.reserve(list.size());
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = "model.merges[" + std::to_string(i) + "]";
    const json& m = list[i];
    std::string left, right;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const size_t space = s.find(' ', 1);
      if (space == std::string::npos || space + 1 >= s.size()) {
        w.fail(path, "'" + s + "' is not \"left right\"");
      }
      left = s.substr(0, space);
      right = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      left = m[0].get<std::string>();
      right = m[1].get<std::string>();
    } else {
      w.fail(path, "must be \"left right\" or [left, right]");
    }
    if (left.empty() || right.empty() || left.find(' ') != std::string::npos ||
        right.find(' ') != std::string::npos) {
      w.fail(path, "merge parts must be non-empty and without spaces");
    }
    merges.push_back(left + " " + right);
  }
  return merges;
}

// SentencePiece scores from merge ranks: a token scores -(rank of the first merge creating it).
void scores_from_merges(Vocab& v) {
  const float unreachable = -static_cast<float>(v.merges.size() + 1);
  v.scores.assign(v.tokens.size(), unreachable);
  std::vector<bool> seen(v.tokens.size(), false);
  for (size_t rank = 0; rank < v.merges.size(); ++rank) {
    std::string merged = v.merges[rank];
    merged.erase(merged.find(' '), 1);
    const int32_t id = v.find(merged);
    if (id < 0 || seen[static_cast<size_t>(id)]) continue;
    seen[static_cast<size_t>(id)] = true;
    v.scores[static_cast<size_t>(id)] = -static_cast<float>(rank);
  }
}

bool is_byte_token(const std::string& text) {
  unsigned value = 0;
  char tail = 0;
  return text.size() == 6 && std::sscanf(text.c_str(), "<0x%2X%c", &value, &tail) == 2 &&
         tail == '>';
}

// A TemplateProcessing post-processor's leading and trailing special tokens (texts).
struct PostSpecials {
  std::optional<std::string> first, last;
};

PostSpecials read_post_processor(const Where& w, const json& root) {
  PostSpecials out;
  const json* node = member(root, "post_processor");
  if (node == nullptr) return out;
  std::vector<std::pair<const json*, std::string>> parts;
  flatten(*node, "processors", "post_processor", parts, w);
  for (const auto& part : parts) {
    const json* n = part.first;  // not a structured binding: clang 14 cannot capture one
    if ((*n)["type"] != "TemplateProcessing") continue;
    const json* single = member(*n, "single");
    if (single == nullptr || !single->is_array() || single->empty()) continue;
    const auto special_text = [&](const json& item) -> std::optional<std::string> {
      const json* st = member(item, "SpecialToken");
      const json* id = st ? member(*st, "id") : nullptr;
      if (id == nullptr || !id->is_string()) return std::nullopt;
      // special_tokens maps the name to the token texts; the name is usually the text.
      std::string text = id->get<std::string>();
      if (const json* map = member(*n, "special_tokens")) {
        const json* entry = member(*map, text.c_str());
        const json* tokens = entry ? member(*entry, "tokens") : nullptr;
        if (tokens && tokens->is_array() && tokens->size() == 1 && (*tokens)[0].is_string()) {
          text = (*tokens)[0].get<std::string>();
        }
      }
      return text;
    };
    out.first = special_text(single->front());
    if (single->size() > 1) out.last = special_text(single->back());
  }
  return out;
}

// tokenizer_config.json's token fields: a string, {"content": ...}, or null.
std::optional<std::string> config_token(const Where& w, const json& config, const char* key) {
  const json* v = member(config, key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  if (v->is_object()) {
    const json* content = member(*v, "content");
    if (content != nullptr && content->is_string()) return content->get<std::string>();
  }
  w.fail(key, "must be a token text, {\"content\": text} or null");
}

int32_t token_id(const Where& w, const Vocab& v, const std::string& text, const char* field) {
  const int32_t id = v.find(text);
  if (id < 0) w.fail(field, "token '" + text + "' is not in the vocabulary");
  return id;
}

std::string config_chat_template(const Where& w, const json& config) {
  const json* t = member(config, "chat_template");
  if (t == nullptr || t->is_null()) return "";
  if (t->is_string()) return t->get<std::string>();
  if (t->is_array()) {
    for (const json& entry : *t) {
      const json* name = member(entry, "name");
      const json* text = member(entry, "template");
      if (name && *name == "default" && text && text->is_string()) return text->get<std::string>();
    }
    return "";
  }
  w.fail("chat_template", "must be a string or a list of {name, template}");
}

std::optional<std::string> read_file_if_exists(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  std::ifstream f(path, std::ios::binary);
  if (!f) throw TokenizerError(path.string() + ": cannot be read");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

HfTokenizerData parse_hf_tokenizer(std::string_view tokenizer_json, const std::string& name,
                                   std::optional<std::string_view> config_json,
                                   const std::string& config_name) {
  const Where w{name};
  const json root = parse_json(tokenizer_json, name);
  if (!root.is_object()) w.fail("(top level)", "must be a JSON object");
  const json& model = require(w, root, "model", json::value_t::object, "model", "an object");
  const json* type = member(model, "type");
  if (type == nullptr && member(model, "merges") == nullptr) {
    w.fail("model.type", "missing (and no model.merges to tell a BPE model)");
  }
  if (type != nullptr && (!type->is_string() || *type != "BPE")) {
    w.fail("model.type", "unsupported model type " + type->dump() + " (supported: BPE)");
  }

  HfTokenizerData out;
  Vocab& v = out.vocab;
  const auto added = read_tokens(w, root, model, v);
  v.merges = read_merges(w, model);
  v.types.assign(v.tokens.size(), TokenType::kNormal);
  v.token_to_id.reserve(v.tokens.size());
  for (size_t i = 0; i < v.tokens.size(); ++i) {
    v.token_to_id.emplace(v.tokens[i], static_cast<int32_t>(i));  // first occurrence wins
  }

  Shape shape;
  read_normalizer(w, root, shape);
  read_pre_tokenizer(w, root, shape);
  const bool byte_fallback = bool_member(w, model, "byte_fallback", "model.byte_fallback", false);
  if (shape.byte_level) {
    if (shape.prepend_space || shape.replace_space || shape.metaspace || byte_fallback) {
      w.fail("pre_tokenizer", "ByteLevel mixed with SentencePiece-style parts is not supported");
    }
    if (shape.split_regex) {
      if (shape.byte_level_regex) {
        w.fail("pre_tokenizer", "a Split followed by ByteLevel(use_regex: true) is not supported");
      }
      v.pre = pre_name_for_regex(w, shape);
    } else if (shape.byte_level_regex) {
      v.pre = "gpt2";
    } else {
      w.fail("pre_tokenizer", "ByteLevel without use_regex and without a Split regex");
    }
    v.model = "gpt2";
    if (v.merges.empty()) w.fail("model.merges", "is empty");
  } else if (byte_fallback || shape.replace_space || shape.metaspace) {
    if (!shape.replace_space && !shape.metaspace) {
      w.fail("normalizer",
             "SentencePiece-style BPE needs a Replace(\" \", \"\u2581\") normalizer "
             "or a Metaspace pre-tokenizer");
    }
    if (shape.split_regex) w.fail(shape.split_path, "a Split regex needs ByteLevel");
    v.model = "llama";
    v.add_space_prefix = shape.prepend_space;
    if (byte_fallback) {
      for (size_t i = 0; i < v.tokens.size(); ++i) {
        if (is_byte_token(v.tokens[i])) v.types[i] = TokenType::kByte;
      }
    }
    scores_from_merges(v);
  } else {
    w.fail("pre_tokenizer",
           "neither byte-level BPE (a ByteLevel pre-tokenizer) nor "
           "SentencePiece-style BPE (byte_fallback, Metaspace or a "
           "Replace(\" \", \"\u2581\") normalizer)");
  }
  if (v.scores.empty()) v.scores.assign(v.tokens.size(), 0.0f);
  for (const auto& [id, special] : added) {
    v.types[static_cast<size_t>(id)] = special ? TokenType::kControl : TokenType::kUserDefined;
  }
  if (const json* unk = member(model, "unk_token"); unk != nullptr && !unk->is_null()) {
    if (!unk->is_string()) w.fail("model.unk_token", "must be a string or null");
    v.unk_id = token_id(w, v, unk->get<std::string>(), "model.unk_token");
    v.types[static_cast<size_t>(v.unk_id)] = TokenType::kUnknown;
  }

  // Special tokens and flags: tokenizer_config.json first, then the post-processor.
  const PostSpecials post = read_post_processor(w, root);
  json config = json::object();
  if (config_json) {
    config = parse_json(*config_json, config_name);
    if (!config.is_object()) Where{config_name}.fail("(top level)", "must be a JSON object");
  }
  const Where cw{config_name};
  const bool spm = v.model == "llama";
  const auto resolve = [&](const char* key, const std::optional<std::string>& post_text,
                           const char* spm_default) -> int32_t {
    if (auto text = config_token(cw, config, key)) return token_id(cw, v, *text, key);
    if (post_text) return token_id(w, v, *post_text, "post_processor");
    return spm ? v.find(spm_default) : -1;
  };
  v.bos_id = resolve("bos_token", post.first, "<s>");
  v.eos_id = resolve("eos_token", post.last, "</s>");
  if (v.unk_id < 0) {
    if (auto text = config_token(cw, config, "unk_token")) {
      v.unk_id = token_id(cw, v, *text, "unk_token");
    }
  }
  if (auto text = config_token(cw, config, "pad_token")) {
    v.pad_id = token_id(cw, v, *text, "pad_token");
  }
  v.eot_id = find_default_eot_id(v);
  v.add_bos =
      bool_member(cw, config, "add_bos_token", "add_bos_token",
                  post.first.has_value() && v.bos_id >= 0 && post.first == v.tokens[v.bos_id]);
  v.add_eos =
      bool_member(cw, config, "add_eos_token", "add_eos_token",
                  post.last.has_value() && v.eos_id >= 0 && post.last == v.tokens[v.eos_id]);
  out.chat_template = config_chat_template(cw, config);
  return out;
}

HfTokenizerData read_hf_tokenizer_files(const std::string& path) {
  const std::filesystem::path p(path);
  const auto text = read_file_if_exists(p);
  if (!text) throw TokenizerError(path + ": no such file");
  const std::filesystem::path config_path = p.parent_path() / "tokenizer_config.json";
  const auto config = read_file_if_exists(config_path);
  HfTokenizerData data = parse_hf_tokenizer(
      *text, path, config ? std::optional<std::string_view>(*config) : std::nullopt,
      config_path.string());
  if (data.chat_template.empty()) {
    if (auto jinja = read_file_if_exists(p.parent_path() / "chat_template.jinja")) {
      data.chat_template = std::move(*jinja);
    }
  }
  return data;
}

}  // namespace llm
