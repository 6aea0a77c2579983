// Special-token text parsing (encode with parse_special): exact ids on the real vocabularies,
// longest-token-first matching, SentencePiece's space prefix per fragment, and the property that
// parsing equals tokenizing the fragments between special tokens one by one.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "backends/formats/gguf_reader.h"
#include "backends/formats/gguf_writer.h"
#include "backends/testing/shared_testdata.h"
#include "backends/tokenizer/tokenizer.h"

namespace llm {
namespace {

const Tokenizer& vocab_tokenizer(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Tokenizer>> cache;
  auto& slot = cache[name];
  if (!slot) slot = Tokenizer::from_gguf_file(testing::vocab_path(name));
  return *slot;
}

struct SpecialCase {
  const char* vocab;
  std::string text;
  std::vector<int32_t> expected;
};

class ParseSpecial : public ::testing::TestWithParam<SpecialCase> {};

TEST_P(ParseSpecial, GivesTheSpecialIds) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const SpecialCase& c = GetParam();
  const Tokenizer& tok = vocab_tokenizer(c.vocab);
  EXPECT_EQ(tok.encode(c.text, /*add_special_tokens=*/false, /*parse_special=*/true), c.expected);
  if (!tok.strips_leading_space()) {
    EXPECT_EQ(tok.decode(c.expected, /*skip_special_tokens=*/false), c.text);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Vocabularies, ParseSpecial,
    ::testing::Values(
        // SentencePiece: each fragment after a special token gets the "▁" prefix (llama.cpp).
        SpecialCase{"llama-spm", "<s>Hello</s>", {1, 15043, 2}},
        SpecialCase{"llama-spm", "<s>[INST]", {1, 518, 25580, 29962}},
        SpecialCase{"llama-spm", "<unk>", {0}},
        SpecialCase{"llama-bpe", "<|begin_of_text|>Hello<|eot_id|>", {128000, 9906, 128009}},
        SpecialCase{"llama-bpe", "<|eot_id|><|eot_id|>", {128009, 128009}},
        SpecialCase{"llama-bpe", "<|reserved_special_token_10|>", {128015}},
        SpecialCase{"gpt-2", "a<|endoftext|>b", {64, 50256, 65}},
        SpecialCase{"qwen2", "<|im_start|>user<|im_end|>", {151644, 872, 151645}},
        SpecialCase{"qwen2", "<|endoftext|>", {151643}}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(ParseSpecialShared, OffByDefaultAndWithBos) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const Tokenizer& spm = vocab_tokenizer("llama-spm");
  EXPECT_EQ(spm.encode("<s>Hello", true, true), (std::vector<int32_t>{1, 1, 15043}));
  const std::vector<int32_t> plain = spm.encode("<s>Hello", false, false);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), 1), 0);
  // Incomplete special text stays text.
  const Tokenizer& llama3 = vocab_tokenizer("llama-bpe");
  EXPECT_EQ(llama3.encode("<|eot_id|", false, true), llama3.encode("<|eot_id|", false, false));
  EXPECT_TRUE(llama3.encode("", false, true).empty());
}

// A small SentencePiece vocabulary with overlapping special texts "<x>" and "<x><y>".
std::unique_ptr<Tokenizer> toy_spm() {
  GgufWriter w;
  w.set_string("tokenizer.ggml.model", "llama");
  w.set_string_array("tokenizer.ggml.tokens",
                     {"<unk>", "<s>", "</s>", "<x>", "<x><y>", "\xE2\x96\x81", "h", "i",
                      "\xE2\x96\x81h", "hi", "\xE2\x96\x81hi"});
  w.set_f32_array("tokenizer.ggml.scores", {0, 0, 0, 0, 0, -1, -1, -1, -3, -4, -2});
  w.set_i32_array("tokenizer.ggml.token_type", {2, 3, 3, 4, 3, 1, 1, 1, 1, 1, 1});
  return Tokenizer::from_gguf(GgufFile::parse(w.to_bytes(), "toy.gguf"));
}

TEST(ParseSpecialToy, LongestTokenTextFirst) {
  const auto tok = toy_spm();
  EXPECT_EQ(tok->encode("<x><y>", false, true), (std::vector<int32_t>{4}));
  EXPECT_EQ(tok->encode("<x><x><y><x>", false, true), (std::vector<int32_t>{3, 4, 3}));
  // Each text fragment is tokenized on its own, with the space prefix: "▁hi".
  EXPECT_EQ(tok->encode("hi<x>hi", false, true), (std::vector<int32_t>{10, 3, 10}));
  EXPECT_EQ(tok->encode("hi", false, true), (std::vector<int32_t>{10}));
  // User-defined tokens are special text too; unknown pieces become <unk>.
  EXPECT_EQ(tok->encode("<x>?", false, true), (std::vector<int32_t>{3, 5, 0}));
}

// Parsing equals tokenizing the plain fragments one by one, with the special ids between them.
RC_GTEST_PROP(ParseSpecialProperty, EqualsFragmentwiseEncoding, ()) {
  if (!testing::have_tokenizer_data()) return;
  struct Spec {
    const char* vocab;
    std::vector<std::string> specials;
  };
  static const std::vector<Spec> specs = {
      {"llama-spm", {"<s>", "</s>", "<unk>"}},
      {"gpt-2", {"<|endoftext|>"}},
      {"llama-bpe",
       {"<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"}},
      {"qwen2", {"<|im_start|>", "<|im_end|>", "<|endoftext|>"}},
  };
  const Spec& spec = *rc::gen::elementOf(specs);
  const Tokenizer& tok = vocab_tokenizer(spec.vocab);
  const auto plain = rc::gen::element<std::string>("Hello", " world", "\n\n", "user", " ", "x y",
                                                   "caf\xC3\xA9", "<", "|>", "12345");
  const auto parts = *rc::gen::container<std::vector<std::pair<bool, std::string>>>(
      rc::gen::oneOf(rc::gen::pair(rc::gen::just(true), rc::gen::elementOf(spec.specials)),
                     rc::gen::pair(rc::gen::just(false), plain)));
  std::string text;
  std::vector<int32_t> expected;
  std::string pending;  // adjacent plain parts form one fragment
  const auto flush = [&] {
    if (pending.empty()) return;
    const auto ids = tok.encode(pending, false, false);
    expected.insert(expected.end(), ids.begin(), ids.end());
    pending.clear();
  };
  for (const auto& [special, s] : parts) {
    text += s;
    if (special) {
      flush();
      expected.push_back(tok.vocab().find(s));
    } else {
      pending += s;
    }
  }
  flush();
  // A plain part like "<" followed by "|>" never forms a special text here, since no special
  // text is made of the plain parts alone.
  RC_ASSERT(tok.encode(text, false, true) == expected);
  RC_ASSERT(tok.decode(expected, false) == text || tok.strips_leading_space());
}

}  // namespace
}  // namespace llm
