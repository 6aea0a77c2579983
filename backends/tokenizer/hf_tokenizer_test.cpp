// Hugging Face tokenizer.json: the four shared vocabularies survive write -> read with every
// golden vector intact, small hand-written files in Hugging Face's real shapes load and encode as
// expected, and malformed files give errors naming the file and the field; load_tokenizer takes a
// .gguf, a tokenizer.json or a directory.
#include "backends/tokenizer/hf_tokenizer.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include "backends/testing/shared_testdata.h"
#include "backends/tokenizer/pretokenizer.h"
#include "backends/tokenizer/tokenizer.h"
#include "backends/tokenizer/utf8.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

std::string temp_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("hf_tokenizer_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

class RoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(RoundTrip, GoldenVectorsSurviveWriteAndRead) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const std::string name = GetParam();
  const auto original = Tokenizer::from_gguf_file(testing::vocab_path(name));
  const std::string dir = temp_dir(name);
  write_tokenizer_json(*original, dir + "/tokenizer.json");
  ASSERT_TRUE(fs::exists(dir + "/tokenizer_config.json"));
  const auto loaded = load_tokenizer(dir);

  const Vocab& a = original->vocab();
  const Vocab& b = loaded->vocab();
  EXPECT_EQ(b.model, a.model);
  if (a.model == "gpt2") {
    EXPECT_EQ(pretokenizer_kind_from_name(b.pre), pretokenizer_kind_from_name(a.pre));
  }
  EXPECT_EQ(b.tokens, a.tokens);
  EXPECT_EQ(b.types, a.types);
  EXPECT_EQ(b.bos_id, a.bos_id);
  EXPECT_EQ(b.eos_id, a.eos_id);
  EXPECT_EQ(b.unk_id, a.unk_id);
  EXPECT_EQ(b.pad_id, a.pad_id);
  EXPECT_EQ(b.eot_id, a.eot_id);
  EXPECT_EQ(b.add_bos, a.add_bos);
  EXPECT_EQ(b.add_eos, a.add_eos);
  EXPECT_EQ(b.add_space_prefix, a.add_space_prefix);
  EXPECT_EQ(loaded->chat_template_text(), original->chat_template_text());

  int passed = 0;
  const auto cases = testing::read_golden(name);
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto ids = loaded->encode(cases[i].text, false);
    if (ids == cases[i].ids) {
      ++passed;
    } else {
      ADD_FAILURE() << name << " case " << i << " differs after the round trip";
    }
    EXPECT_EQ(loaded->decode(ids), cases[i].text) << name << " case " << i;
    EXPECT_EQ(loaded->encode(cases[i].text, true, true),
              original->encode(cases[i].text, true, true))
        << name << " case " << i << " with BOS and special parsing";
  }
  std::cout << "[tokenizer.json round trip] " << name << ": " << passed << "/" << cases.size()
            << " golden vectors match\n";
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, RoundTrip,
                         ::testing::Values("llama-spm", "gpt-2", "llama-bpe", "qwen2"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

// tokenizer.json and tokenizer_config.json are each written whole or not at all (through
// core/pending_file.h): nothing but the two files afterwards, and a directory that does not exist
// is an error naming the file.
TEST(HfTokenizerWrite, BothFilesWholeAndNothingElse) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const auto tokenizer = Tokenizer::from_gguf_file(testing::vocab_path("gpt-2"));
  const std::string dir = temp_dir("write");
  write_tokenizer_json(*tokenizer, dir + "/tokenizer.json");
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"tokenizer.json", "tokenizer_config.json"}));
  const std::string missing = dir + "/no-such-dir/tokenizer.json";
  try {
    write_tokenizer_json(*tokenizer, missing);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + missing + ": No such file or directory");
  }
}

// GPT-2's shape: ByteLevel pre-tokenizer with use_regex, merges as pairs (tokenizers >= 0.20),
// the special token only in added_tokens; no tokenizer_config.json.
constexpr const char* kByteLevelJson = R"({
  "version": "1.0", "truncation": null, "padding": null,
  "added_tokens": [{"id": 17, "content": "<|endoftext|>", "single_word": false, "lstrip": false,
                    "rstrip": false, "normalized": false, "special": true}],
  "normalizer": null,
  "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true,
                    "use_regex": true},
  "post_processor": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false,
                     "use_regex": true},
  "decoder": {"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true,
              "use_regex": true},
  "model": {"type": "BPE", "dropout": null, "unk_token": null, "continuing_subword_prefix": "",
            "end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false,
            "ignore_merges": false,
            "vocab": {"h": 0, "e": 1, "l": 2, "o": 3, "\u0120": 4, "w": 5, "r": 6, "d": 7,
                      "he": 8, "ll": 9, "hell": 10, "hello": 11, "\u0120w": 12, "or": 13,
                      "\u0120wor": 14, "ld": 15, "\u0120world": 16},
            "merges": [["h", "e"], ["l", "l"], ["he", "ll"], ["hell", "o"], ["\u0120", "w"],
                       ["o", "r"], ["\u0120w", "or"], ["l", "d"], ["\u0120wor", "ld"]]}
})";

TEST(HfTokenizerFixture, ByteLevelBpe) {
  const std::string dir = temp_dir("byte_level");
  write_text(dir + "/tokenizer.json", kByteLevelJson);
  const auto tok = load_tokenizer(dir + "/tokenizer.json");
  EXPECT_EQ(tok->vocab_size(), 18);
  EXPECT_EQ(tok->vocab().pre, "gpt2");
  EXPECT_EQ(tok->encode("hello world", true), (std::vector<int32_t>{11, 16}));
  EXPECT_EQ(tok->encode("dl", false), (std::vector<int32_t>{7, 2}));
  EXPECT_EQ(tok->encode("hello<|endoftext|>", false, true), (std::vector<int32_t>{11, 17}));
  EXPECT_EQ(tok->decode({11, 16, 17}), "hello world");
  EXPECT_EQ(tok->vocab().type(17), TokenType::kControl);
  EXPECT_EQ(tok->bos_id(), -1);
  EXPECT_EQ(tok->chat_template_text(), "");
}

// Llama 2's shape: byte_fallback BPE, Prepend + Replace normalizer, a TemplateProcessing adding
// <s>, and a tokenizer_config.json with the chat template.
constexpr const char* kLlama2Json = R"({
  "version": "1.0", "truncation": null, "padding": null,
  "added_tokens": [
    {"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true},
    {"id": 1, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true},
    {"id": 2, "content": "</s>", "single_word": false, "lstrip": false, "rstrip": false,
     "normalized": false, "special": true}],
  "normalizer": {"type": "Sequence", "normalizers": [
    {"type": "Prepend", "prepend": "\u2581"},
    {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]},
  "pre_tokenizer": null,
  "post_processor": {"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}},
               {"Sequence": {"id": "A", "type_id": 0}}],
    "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
             {"SpecialToken": {"id": "<s>", "type_id": 1}}, {"Sequence": {"id": "B", "type_id": 1}}],
    "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}}},
  "decoder": {"type": "Sequence", "decoders": [
    {"type": "Replace", "pattern": {"String": "\u2581"}, "content": " "},
    {"type": "ByteFallback"}, {"type": "Fuse"},
    {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
  "model": {"type": "BPE", "dropout": null, "unk_token": "<unk>",
            "continuing_subword_prefix": null, "end_of_word_suffix": null, "fuse_unk": true,
            "byte_fallback": true,
            "vocab": {"<unk>": 0, "<s>": 1, "</s>": 2, "<0x0A>": 3, "<0x21>": 4, "\u2581": 5,
                      "h": 6, "i": 7, "\u2581h": 8, "hi": 9, "\u2581hi": 10},
            "merges": ["\u2581 h", "h i", "\u2581h i"]}
})";

constexpr const char* kLlama2Config = R"({
  "add_bos_token": true, "add_eos_token": false,
  "bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": false, "normalized": false,
                "rstrip": false, "single_word": false},
  "eos_token": "</s>", "unk_token": "<unk>", "pad_token": null,
  "chat_template": "{% if messages[0]['role'] == 'system' %}<<SYS>>[INST] [/INST]{% endif %}",
  "legacy": true, "tokenizer_class": "LlamaTokenizer"
})";

TEST(HfTokenizerFixture, Llama2SentencePieceStyle) {
  const std::string dir = temp_dir("llama2");
  write_text(dir + "/tokenizer.json", kLlama2Json);
  write_text(dir + "/tokenizer_config.json", kLlama2Config);
  const auto tok = load_tokenizer(dir);
  EXPECT_EQ(tok->vocab().model, "llama");
  EXPECT_EQ(tok->bos_id(), 1);
  EXPECT_EQ(tok->eos_id(), 2);
  EXPECT_EQ(tok->unk_id(), 0);
  EXPECT_EQ(tok->vocab().type(0), TokenType::kUnknown);
  EXPECT_EQ(tok->vocab().type(3), TokenType::kByte);
  EXPECT_TRUE(tok->strips_leading_space());
  EXPECT_EQ(tok->encode("hi", true), (std::vector<int32_t>{1, 10}));
  EXPECT_EQ(tok->encode("hi!\n", false), (std::vector<int32_t>{10, 4, 3}));
  EXPECT_EQ(tok->encode("hi hi", false), (std::vector<int32_t>{10, 10}));
  EXPECT_EQ(tok->encode("ih", false), (std::vector<int32_t>{5, 7, 6}));
  EXPECT_EQ(tok->encode("<s>hi", false, true), (std::vector<int32_t>{1, 10}));
  EXPECT_EQ(tok->decode({1, 10, 4, 3, 2}), "hi!\n");
  EXPECT_NE(tok->chat_template_text().find("<<SYS>>"), std::string::npos);

  // The same with a Metaspace pre-tokenizer instead of the normalizer, and no config: BOS and
  // add_bos come from the post-processor, eos from the SentencePiece default.
  std::string metaspace = kLlama2Json;
  const std::string normalizer_start = "\"normalizer\": {";
  const size_t a = metaspace.find(normalizer_start);
  const size_t b = metaspace.find("\"pre_tokenizer\": null,");
  metaspace.replace(a, b + std::string("\"pre_tokenizer\": null,").size() - a,
                    "\"normalizer\": null, \"pre_tokenizer\": {\"type\": \"Metaspace\", "
                    "\"replacement\": \"\\u2581\", \"prepend_scheme\": \"first\", \"split\": "
                    "false},");
  const std::string meta_dir = temp_dir("metaspace");
  write_text(meta_dir + "/tokenizer.json", metaspace);
  const auto meta = Tokenizer::from_tokenizer_json(meta_dir + "/tokenizer.json");
  EXPECT_EQ(meta->encode("hi hi", true), (std::vector<int32_t>{1, 10, 10}));
  EXPECT_EQ(meta->eos_id(), 2);
  EXPECT_TRUE(meta->vocab().add_bos);
}

// Each malformed file names the file and the field.
struct ErrorCase {
  const char* name;
  std::string json;
  std::string expected;  // in the message, besides the file name
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(HfTokenizerErrors, NameTheFileAndField) {
  const std::string base = kByteLevelJson;
  const std::vector<ErrorCase> cases = {
      {"not_json", "{ nope", "not valid JSON"},
      {"no_model", "{}", "model: missing"},
      {"wordpiece", replaced(base, "\"type\": \"BPE\"", "\"type\": \"WordPiece\""),
       "model.type: unsupported model type \"WordPiece\""},
      {"no_vocab", replaced(base, "\"vocab\":", "\"vocabulary\":"), "model.vocab: missing"},
      {"no_merges", replaced(base, "\"merges\":", "\"merge_list\":"), "model.merges: missing"},
      {"bad_merge", replaced(base, "[\"h\", \"e\"]", "\"he\""), "model.merges[0]"},
      {"gap", replaced(base, "\"d\": 7,", ""), "no token has id 7"},
      {"clash", replaced(base, "\"id\": 17", "\"id\": 16"), "id 16 is both"},
      {"regex",
       replaced(base, R"("pre_tokenizer": {"type": "ByteLevel")",
                R"("pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Split",
                   "pattern": {"Regex": "\\s+"}, "behavior": "Isolated", "invert": false},
                   {"type": "ByteLevel", "use_regex": false}]}, "unused": {"type": "ByteLevel")"),
       "pre_tokenizer.pretokenizers[0].pattern.Regex: unknown pre-tokenizer regex '\\s+'"},
      {"whitespace_split",
       replaced(base, R"("pre_tokenizer": {"type": "ByteLevel")",
                R"("pre_tokenizer": {"type": "WhitespaceSplit"}, "unused": {"type": "ByteLevel")"),
       "pre_tokenizer.type: unsupported pre-tokenizer type 'WhitespaceSplit'"},
      {"no_pretokenizer",
       replaced(base, R"("pre_tokenizer": {"type": "ByteLevel")",
                R"("pre_tokenizer": null, "unused": {"type": "ByteLevel")"),
       "pre_tokenizer: neither byte-level BPE"},
      {"lowercase",
       replaced(base, "\"normalizer\": null", "\"normalizer\": {\"type\": \"Lowercase\"}"),
       "normalizer.type: unsupported normalizer type 'Lowercase'"},
  };
  for (const ErrorCase& c : cases) {
    const std::string path = temp_dir(c.name) + "/tokenizer.json";
    write_text(path, c.json);
    try {
      load_tokenizer(path);
      ADD_FAILURE() << c.name << ": loaded";
    } catch (const TokenizerError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << c.name << ": " << msg;
      EXPECT_NE(msg.find(c.expected), std::string::npos) << c.name << ": " << msg;
    }
  }
}

TEST(HfTokenizerErrors, ConfigTokensMustBeInTheVocabulary) {
  const std::string dir = temp_dir("bad_config");
  write_text(dir + "/tokenizer.json", kByteLevelJson);
  write_text(dir + "/tokenizer_config.json", R"({"bos_token": "<s>"})");
  try {
    load_tokenizer(dir);
    FAIL();
  } catch (const TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("tokenizer_config.json: bos_token: token '<s>' is not in"),
              std::string::npos)
        << e.what();
  }
  write_text(dir + "/tokenizer_config.json", R"({"add_bos_token": "yes"})");
  EXPECT_THROW(load_tokenizer(dir), TokenizerError);
}

// The GGUF tokenizer and its tokenizer.json twin (written once per vocabulary).
const std::pair<std::unique_ptr<Tokenizer>, std::unique_ptr<Tokenizer>>& twins(
    const std::string& name) {
  static std::map<std::string, std::pair<std::unique_ptr<Tokenizer>, std::unique_ptr<Tokenizer>>>
      cache;
  auto& slot = cache[name];
  if (!slot.first) {
    slot.first = Tokenizer::from_gguf_file(testing::vocab_path(name));
    const std::string dir = temp_dir("twin_" + name);
    write_tokenizer_json(*slot.first, dir + "/tokenizer.json");
    slot.second = load_tokenizer(dir);
    fs::remove_all(dir);
  }
  return slot;
}

// Random text (words, whitespace runs, digits, accents, CJK, emoji, special-token text)
// encodes identically with both; for SentencePiece this checks the scores derived from merges.
RC_GTEST_PROP(HfTokenizerProperty, JsonTwinEncodesLikeGguf, ()) {
  if (!testing::have_tokenizer_data()) return;
  const std::string name =
      *rc::gen::element<std::string>("llama-spm", "gpt-2", "llama-bpe", "qwen2");
  const auto& [gguf, json] = twins(name);
  const auto pieces = *rc::gen::container<std::vector<std::string>>(rc::gen::oneOf(
      rc::gen::element<std::string>("the", " quick", "brown", "  ", "\n", "\t", "12345", "'s",
                                    "<s>", "<|eot_id|>", "<|im_start|>", "<|endoftext|>",
                                    "unbelievable", "ing", " ."),
      rc::gen::map(
          rc::gen::container<std::vector<uint32_t>>(rc::gen::oneOf(
              rc::gen::inRange<uint32_t>(0x21, 0x7F), rc::gen::inRange<uint32_t>(0xC0, 0x250),
              rc::gen::inRange<uint32_t>(0x4E00, 0x4F00),
              rc::gen::inRange<uint32_t>(0x1F600, 0x1F650))),
          [](const std::vector<uint32_t>& cps) {
            std::string s;
            for (uint32_t cp : cps) utf8_append(s, cp);
            return s;
          })));
  std::string text;
  for (const auto& p : pieces) text += p;
  const bool add = *rc::gen::arbitrary<bool>();
  const bool parse = *rc::gen::arbitrary<bool>();
  RC_ASSERT(json->encode(text, add, parse) == gguf->encode(text, add, parse));
}

TEST(LoadTokenizer, GgufJsonOrDirectory) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const auto gguf = load_tokenizer(testing::vocab_path("llama-spm"));
  EXPECT_EQ(gguf->encode("Hello world", false), (std::vector<int32_t>{15043, 3186}));
  const std::string dir = temp_dir("load");
  write_tokenizer_json(*gguf, dir + "/tokenizer.json");
  EXPECT_EQ(load_tokenizer(dir)->encode("Hello world", true),
            (std::vector<int32_t>{1, 15043, 3186}));
  EXPECT_EQ(load_tokenizer(dir + "/tokenizer.json")->vocab_size(), 32000);

  const std::string empty = temp_dir("empty");
  try {
    load_tokenizer(empty);
    FAIL();
  } catch (const TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("no tokenizer.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_tokenizer("/nonexistent/tokenizer.json"), TokenizerError);
}

TEST(HfTokenizerConfig, ChatTemplateShapes) {
  const std::string dir = temp_dir("chat_template");
  write_text(dir + "/tokenizer.json", kByteLevelJson);
  write_text(dir + "/tokenizer_config.json",
             R"({"chat_template": [{"name": "tool_use", "template": "T"},
                                   {"name": "default", "template": "D"}]})");
  EXPECT_EQ(load_tokenizer(dir)->chat_template_text(), "D");
  write_text(dir + "/tokenizer_config.json", "{}");
  write_text(dir + "/chat_template.jinja", "J");
  EXPECT_EQ(load_tokenizer(dir)->chat_template_text(), "J");
}

}  // namespace
}  // namespace llm
