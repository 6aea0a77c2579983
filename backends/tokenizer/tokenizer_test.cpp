// Tokenizer behaviour beyond the golden vectors: special tokens, decode rules, errors, UTF-8
// helpers, and the streaming detokenizer property (any split of the ids emits valid UTF-8 that
// concatenates to decode()).
#include "backends/tokenizer/tokenizer.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <memory>

#include "backends/formats/gguf_reader.h"
#include "backends/formats/gguf_writer.h"
#include "backends/testing/shared_testdata.h"
#include "backends/tokenizer/byte_unicode.h"
#include "backends/tokenizer/streaming_detokenizer.h"
#include "backends/tokenizer/utf8.h"

namespace llm {
namespace {

const Tokenizer& shared_tokenizer(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Tokenizer>> cache;
  auto& slot = cache[name];
  if (!slot) slot = Tokenizer::from_gguf_file(testing::vocab_path(name));
  return *slot;
}

TEST(Utf8, CheckAndSanitize) {
  EXPECT_TRUE(utf8_is_valid("h\xC3\xA9llo \xF0\x9F\xA6\x99"));
  EXPECT_FALSE(utf8_is_valid("\xC0\xAF"));          // overlong
  EXPECT_FALSE(utf8_is_valid("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(utf8_is_valid("\xF4\x90\x80\x80"));  // > U+10FFFF
  EXPECT_EQ(utf8_sanitize("a\xFF"
                          "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(utf8_sanitize("a\xF0\x9F"), "a\xEF\xBF\xBD");
  std::string out;
  EXPECT_EQ(utf8_sanitize_stable("a\xF0\x9F", out), 1u);
  EXPECT_EQ(out, "a");
}

TEST(ByteUnicode, IsABijectionWithGpt2Alphabet) {
  EXPECT_EQ(byte_to_unicode(' '), "\xC4\xA0");   // Ġ
  EXPECT_EQ(byte_to_unicode('\n'), "\xC4\x8A");  // Ċ
  EXPECT_EQ(byte_to_unicode('A'), "A");
  for (int b = 0; b < 256; ++b) {
    const std::string& s = byte_to_unicode(static_cast<uint8_t>(b));
    const auto* p = reinterpret_cast<const uint8_t*>(s.data());
    EXPECT_EQ(unicode_to_byte(utf8_decode_valid(p, utf8_check(p, s.size()))), b);
  }
}

TEST(TokenizerShared, SpecialTokensFromMetadata) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const Tokenizer& spm = shared_tokenizer("llama-spm");
  EXPECT_EQ(spm.vocab_size(), 32000);
  EXPECT_EQ(spm.bos_id(), 1);
  EXPECT_EQ(spm.eos_id(), 2);
  EXPECT_EQ(spm.unk_id(), 0);
  EXPECT_EQ(spm.encode("Hello world", false), (std::vector<int32_t>{15043, 3186}));
  EXPECT_EQ(spm.encode("Hello world", true), (std::vector<int32_t>{1, 15043, 3186}));
  EXPECT_EQ(spm.decode({1, 15043, 3186, 2}), "Hello world");
  EXPECT_EQ(spm.decode({1, 15043, 3186, 2}, /*skip_special_tokens=*/false), "<s> Hello world</s>");
  EXPECT_TRUE(spm.encode("", false).empty());

  const Tokenizer& llama3 = shared_tokenizer("llama-bpe");
  EXPECT_EQ(llama3.bos_id(), 128000);
  EXPECT_EQ(llama3.vocab_size(), 128256);
  EXPECT_EQ(llama3.encode("Hello", true).front(), 128000);
  EXPECT_EQ(llama3.eot_id(), llama3.vocab().find("<|eot_id|>"));
  EXPECT_EQ(llama3.decode({128000, 9906}), "Hello");

  const Tokenizer& gpt2 = shared_tokenizer("gpt-2");
  EXPECT_EQ(gpt2.vocab_size(), 50257);
  const Tokenizer& qwen = shared_tokenizer("qwen2");
  EXPECT_EQ(qwen.vocab_size(), 151936);
  EXPECT_EQ(qwen.eot_id(), qwen.vocab().find("<|im_end|>"));
}

TEST(TokenizerShared, SpecialTokenTextIsNotParsed) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const Tokenizer& llama3 = shared_tokenizer("llama-bpe");
  const auto ids = llama3.encode("<|eot_id|>", false);
  EXPECT_GT(ids.size(), 1u);
  EXPECT_EQ(llama3.decode(ids), "<|eot_id|>");
}

TEST(TokenizerShared, InvalidInputIsHandled) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const Tokenizer& spm = shared_tokenizer("llama-spm");
  // Byte fallback keeps invalid bytes; decode repairs them to U+FFFD.
  EXPECT_EQ(spm.decode(spm.encode("a\xFF", false)), "a\xEF\xBF\xBD");
  const Tokenizer& gpt2 = shared_tokenizer("gpt-2");
  EXPECT_EQ(gpt2.decode(gpt2.encode("a\xFF"
                                    "b",
                                    false)),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_THROW(gpt2.decode({50257}), TokenizerError);
  EXPECT_THROW(gpt2.decode({-1}), TokenizerError);
}

TEST(TokenizerErrors, UnsupportedModelAndPreTokenizer) {
  GgufWriter w;
  w.set_string("tokenizer.ggml.model", "bert");
  w.set_string_array("tokenizer.ggml.tokens", {"a"});
  try {
    Tokenizer::from_gguf(GgufFile::parse(w.to_bytes(), "bert.gguf"));
    FAIL();
  } catch (const TokenizerError& e) {
    EXPECT_NE(std::string(e.what()).find("unsupported tokenizer model 'bert'"), std::string::npos);
  }
  w.set_string("tokenizer.ggml.model", "gpt2");
  w.set_string("tokenizer.ggml.pre", "falcon");
  w.set_string_array("tokenizer.ggml.merges", {"a a"});
  EXPECT_THROW(Tokenizer::from_gguf(GgufFile::parse(w.to_bytes())), TokenizerError);
  EXPECT_THROW(Tokenizer::from_gguf_file("/nonexistent.gguf"), TokenizerError);
}

// Splits `ids` at the given cut points and checks the streaming invariants.
void check_stream(const Tokenizer& tok, const std::vector<int32_t>& ids) {
  StreamingDetokenizer detok(tok);
  std::string all;
  for (int32_t id : ids) {
    const std::string chunk = detok.push(id);
    RC_ASSERT(utf8_is_valid(chunk));
    all += chunk;
  }
  const std::string tail = detok.flush();
  RC_ASSERT(utf8_is_valid(tail));
  all += tail;
  RC_ASSERT(all == tok.decode(ids));
}

const std::vector<std::string>& sample_texts() {
  static const std::vector<std::string> texts = [] {
    std::vector<std::string> t;
    if (testing::have_tokenizer_data()) {
      for (const auto& c : testing::read_golden("llama-spm")) t.push_back(c.text);
    }
    t.push_back("caf\xC3\xA9 \xF0\x9F\xA6\x99 \xE4\xBD\xA0\xE5\xA5\xBD");
    return t;
  }();
  return texts;
}

RC_GTEST_PROP(StreamingDetokenizerProperty, ValidUtf8ChunksConcatenatingToDecode, ()) {
  if (!testing::have_tokenizer_data()) return;
  const std::string name =
      *rc::gen::element<std::string>("llama-spm", "gpt-2", "llama-bpe", "qwen2");
  const Tokenizer& tok = shared_tokenizer(name);
  const auto& texts = sample_texts();
  const size_t which = *rc::gen::inRange<size_t>(0, texts.size());
  // A golden text, or a random slice of one (so byte-fallback tokens get cut mid-character).
  std::vector<int32_t> ids = tok.encode(texts[which], *rc::gen::arbitrary<bool>());
  if (!ids.empty() && *rc::gen::arbitrary<bool>()) {
    const size_t a = *rc::gen::inRange<size_t>(0, ids.size());
    const size_t b = *rc::gen::inRange<size_t>(a, ids.size() + 1);
    ids = std::vector<int32_t>(ids.begin() + static_cast<ptrdiff_t>(a),
                               ids.begin() + static_cast<ptrdiff_t>(b));
  }
  check_stream(tok, ids);
}

RC_GTEST_PROP(StreamingDetokenizerProperty, RandomIdsNeverEmitInvalidUtf8, ()) {
  if (!testing::have_tokenizer_data()) return;
  const std::string name = *rc::gen::element<std::string>("llama-spm", "gpt-2");
  const Tokenizer& tok = shared_tokenizer(name);
  const auto ids =
      *rc::gen::container<std::vector<int32_t>>(rc::gen::inRange<int32_t>(0, tok.vocab_size()));
  check_stream(tok, ids);
}

RC_GTEST_PROP(TokenizerProperty, RandomUnicodeRoundTrips, ()) {
  if (!testing::have_tokenizer_data()) return;
  const std::string name =
      *rc::gen::element<std::string>("llama-spm", "gpt-2", "llama-bpe", "qwen2");
  const Tokenizer& tok = shared_tokenizer(name);
  const auto cps = *rc::gen::container<std::vector<uint32_t>>(rc::gen::oneOf(
      rc::gen::inRange<uint32_t>(0x20, 0x7F), rc::gen::element<uint32_t>(' ', '\n', '\t'),
      rc::gen::inRange<uint32_t>(0xA0, 0x800), rc::gen::inRange<uint32_t>(0x4E00, 0x9FFF),
      rc::gen::inRange<uint32_t>(0x1F300, 0x1F6FF)));
  std::string text;
  for (uint32_t cp : cps) utf8_append(text, cp);
  RC_ASSERT(tok.decode(tok.encode(text, false)) == text);
}

}  // namespace
}  // namespace llm
