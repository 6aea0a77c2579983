// `llmsim tokenize`: output format, flags and exit codes.
#include "sim/cli/tokenize_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/testing/shared_testdata.h"
#include "backends/tokenizer/tokenizer.h"

namespace llm {
namespace {

int run_tokenize(const std::vector<std::string>& args, std::string* out, std::string* err) {
  std::ostringstream o, e;
  const int code = run_tokenize_command(args, o, e);
  *out = o.str();
  *err = e.str();
  return code;
}

TEST(TokenizeCommand, PrintsIds) {
  LLM_REQUIRE_TOKENIZER_DATA();
  std::string out, err;
  const std::string spm = testing::vocab_path("llama-spm");
  EXPECT_EQ(run_tokenize({"--tokenizer", spm, "Hello world"}, &out, &err), 0) << err;
  EXPECT_EQ(out, "15043 3186\n");
  EXPECT_EQ(run_tokenize({"--tokenizer", spm, "--add-special-tokens", "Hello world"}, &out, &err),
            0);
  EXPECT_EQ(out, "1 15043 3186\n");
  EXPECT_EQ(run_tokenize({"--tokenizer=" + spm, "--", "--x"}, &out, &err), 0);
  EXPECT_EQ(run_tokenize({"--tokenizer", spm, "--parse-special", "<s>Hello"}, &out, &err), 0)
      << err;
  EXPECT_EQ(out, "1 15043\n");
}

TEST(TokenizeCommand, AcceptsTokenizerJsonAndDirectory) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const std::string dir = ::testing::TempDir() + "/tokenize_command_json";
  std::filesystem::create_directories(dir);
  write_tokenizer_json(*load_tokenizer(testing::vocab_path("llama-bpe")), dir + "/tokenizer.json");
  std::string out, err;
  for (const std::string& path : {testing::vocab_path("llama-bpe"), dir + "/tokenizer.json", dir}) {
    EXPECT_EQ(run_tokenize({"--tokenizer", path, "--add-special-tokens", "Hello"}, &out, &err), 0)
        << err;
    EXPECT_EQ(out, "128000 9906\n") << path;
  }
  std::filesystem::remove_all(dir);
}

TEST(TokenizeCommand, BadInputExitsTwo) {
  std::string out, err;
  EXPECT_EQ(run_tokenize({"--tokenizer", "/nonexistent.gguf", "hi"}, &out, &err), 2);
  EXPECT_NE(err.find("/nonexistent.gguf"), std::string::npos) << err;
  const std::string junk = ::testing::TempDir() + "/not_a_gguf.txt";
  std::ofstream(junk) << "hello, not gguf";
  EXPECT_EQ(run_tokenize({"--tokenizer", junk, "hi"}, &out, &err), 2);
  // Not GGUF, so read as tokenizer.json.
  EXPECT_NE(err.find(junk + ": not valid JSON"), std::string::npos) << err;
  EXPECT_EQ(run_tokenize({"hi"}, &out, &err), 2);
  EXPECT_EQ(run_tokenize({"--tokenizer", junk}, &out, &err), 2);
  EXPECT_EQ(run_tokenize({"--tokenizer", junk, "a", "b"}, &out, &err), 2);
  EXPECT_EQ(run_tokenize({"--bogus"}, &out, &err), 2);
  EXPECT_EQ(run_tokenize({"--help"}, &out, &err), 0);
}

}  // namespace
}  // namespace llm
