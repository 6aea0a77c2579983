#include "backends/sim/sim_tokenizer.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(SimTokenizer, SplitsWordsPunctuationAndWhitespaceStably) {
  SimTokenizer tok(1000);
  const auto ids = tok.encode("Hello, world!  ok");
  // "Hello" "," " world" "!" " " " ok": a space before a word belongs to the word
  EXPECT_EQ(ids.size(), 6u);
  EXPECT_EQ(ids, tok.encode("Hello, world!  ok"));
  EXPECT_NE(tok.encode("Hello"), tok.encode("hello"));
  EXPECT_TRUE(tok.encode("").empty());
  for (int32_t id : tok.encode("the quick brown fox jumps over the lazy dog. 1234 ...")) {
    EXPECT_GE(id, 0);
    EXPECT_LT(id, tok.eos_token_id());
  }
}

TEST(SimTokenizer, LongWordsAreSplitIntoPiecesOfAtMost16Bytes) {
  SimTokenizer tok(1000);
  EXPECT_EQ(tok.encode(std::string(40, 'a')).size(), 3u);
}

TEST(SimTokenizer, OutputVocabularyIsReadableAndEosIsEmpty) {
  SimTokenizer tok(128256);
  EXPECT_EQ(tok.eos_token_id(), 128255);
  EXPECT_EQ(tok.piece(tok.eos_token_id()), "");
  EXPECT_EQ(tok.piece(0), " the");
  EXPECT_EQ(tok.decode({0, 1, 2}), " the of and");
}

TEST(SimTokenizer, NaturalLengthIsDeterministicInRangeAndKeyedOnThePromptHash) {
  SimTokenizer tok(128256);
  const auto prompt = tok.encode("<|user|>\nHi\n<|assistant|>\n");
  const int64_t len = SimTokenizer::natural_output_len(prompt, 0);
  EXPECT_GE(len, 8);
  EXPECT_LT(len, 128);
  EXPECT_EQ(len, SimTokenizer::natural_output_len(prompt, 0));
  EXPECT_EQ(len, SimTokenizer::natural_output_len(SimTokenizer::prompt_hash(prompt), 0));
  int64_t differ = 0;
  for (uint64_t seed = 1; seed <= 16; ++seed) {
    differ += SimTokenizer::natural_output_len(prompt, seed) != len;
  }
  EXPECT_GT(differ, 8);  // the seed moves the stop
}

}  // namespace
}  // namespace llm
