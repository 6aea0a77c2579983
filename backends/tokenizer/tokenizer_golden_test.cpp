// Every golden tokenization of the four shared vocabularies (llama-spm, gpt-2, llama-bpe, qwen2)
// must match exactly, and decode(encode(text)) == text on the same inputs.
#include <gtest/gtest.h>

#include <sstream>

#include "backends/formats/gguf_reader.h"
#include "backends/testing/shared_testdata.h"
#include "backends/tokenizer/tokenizer.h"

namespace llm {
namespace {

std::string ids_text(const std::vector<int32_t>& ids) {
  std::ostringstream os;
  for (size_t i = 0; i < ids.size(); ++i) os << (i ? " " : "") << ids[i];
  return os.str();
}

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      out += c;
    }
  }
  return "\"" + out + "\"";
}

class GoldenVectors : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenVectors, EncodeMatchesEveryVectorAndDecodeRoundTrips) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const std::string name = GetParam();
  const auto tokenizer = Tokenizer::from_gguf_file(testing::vocab_path(name));
  const auto cases = testing::read_golden(name);
  ASSERT_EQ(cases.size(), 46u);
  int passed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    const std::vector<int32_t> actual = tokenizer->encode(c.text, /*add_special_tokens=*/false);
    if (actual == c.ids) {
      ++passed;
    } else {
      ADD_FAILURE() << name << " case " << i << ": input " << escaped(c.text)
                    << "\n  expected: " << ids_text(c.ids) << "\n  actual:   " << ids_text(actual);
    }
    EXPECT_EQ(tokenizer->decode(actual), c.text) << name << " case " << i << " round trip";
  }
  RecordProperty("passed", passed);
  std::cout << "[golden] " << name << ": " << passed << "/" << cases.size() << " vectors match\n";
}

INSTANTIATE_TEST_SUITE_P(Vocabularies, GoldenVectors,
                         ::testing::Values("llama-spm", "gpt-2", "llama-bpe", "qwen2"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& c : n) {
                             if (c == '-') c = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace llm
