// Test helpers for every backend library: where the shared tokenizer vocabularies live, how to read
// their golden vectors (NAME.gguf.inp: texts separated by "\n__ggml_vocab_test__\n";
// NAME.gguf.out: one line of space-separated ids per text); a fresh scratch folder per test.
// Thread-safety: plain functions; safe from any thread.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace llm::testing {

inline std::string tokenizer_dir() { return LLM_SOURCE_DIR "/../shared/testdata/tokenizers"; }

inline bool have_tokenizer_data() {
  return std::filesystem::exists(tokenizer_dir() + "/ggml-vocab-llama-spm.gguf");
}

inline std::string vocab_path(const std::string& name) {
  return tokenizer_dir() + "/ggml-vocab-" + name + ".gguf";
}

inline std::string read_text_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// An empty folder for one test's files: <gtest temp dir>/llm_model_<name>_<pid>.
inline std::string scratch_dir(const std::string& name) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                  ("llm_model_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  return p.string();
}

struct GoldenCase {
  std::string text;
  std::vector<int32_t> ids;
};

inline std::vector<GoldenCase> read_golden(const std::string& name) {
  const std::string inp = read_text_file(vocab_path(name) + ".inp");
  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> texts;
  size_t pos = 0;
  for (size_t at; (at = inp.find(sep, pos)) != std::string::npos; pos = at + sep.size()) {
    texts.push_back(inp.substr(pos, at - pos));
  }
  std::ifstream out(vocab_path(name) + ".out");
  std::vector<GoldenCase> cases;
  std::string line;
  for (size_t i = 0; i < texts.size() && std::getline(out, line); ++i) {
    GoldenCase c{texts[i], {}};
    std::istringstream ls(line);
    for (int64_t id; ls >> id;) c.ids.push_back(static_cast<int32_t>(id));
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace llm::testing

#define LLM_REQUIRE_TOKENIZER_DATA()                                                       \
  if (!::llm::testing::have_tokenizer_data()) {                                            \
    GTEST_SKIP() << "tokenizer test data not found in " << ::llm::testing::tokenizer_dir() \
                 << "; skipping";                                                          \
  }
