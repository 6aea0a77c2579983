// Fuzz target: the tokenizer.json reader (backends/tokenizer/hf_tokenizer.h) on arbitrary text.
// Byte 0 odd: the rest is "TOKENIZER_JSON\0TOKENIZER_CONFIG_JSON" (a NUL never occurs in valid
// JSON); even: tokenizer.json alone. A vocabulary that loads becomes a tokenizer (BPE or
// SentencePiece-style, as Tokenizer::from_tokenizer_json chooses) that encodes and decodes a
// short text, and is written back with hf_tokenizer_json_text and read again.
// Checks: parse_hf_tokenizer returns or throws TokenizerError ("anything else is a
// TokenizerError"), so does building the tokenizer; encode/decode do not throw; the written text
// reads back into a vocabulary that encodes the sample to the same ids.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tokenizer/bpe_tokenizer.h"
#include "backends/tokenizer/hf_tokenizer.h"
#include "backends/tokenizer/spm_tokenizer.h"
#include "backends/tokenizer/tokenizer.h"
#include "fuzz/fuzz_util.h"

namespace {

using llm::fuzz::returns_or_throws;

constexpr std::string_view kSample = "Hello world, <s> caf\xc3\xa9 \xff 123\n";

std::unique_ptr<llm::Tokenizer> make_tokenizer(llm::Vocab vocab) {
  if (vocab.model == "llama") return std::make_unique<llm::SpmTokenizer>(std::move(vocab));
  return std::make_unique<llm::BpeTokenizer>(std::move(vocab));
}

std::vector<int32_t> sample_ids(const llm::Tokenizer& tokenizer) {
  std::vector<int32_t> ids;
  returns_or_throws<>("encode/decode of a loaded tokenizer.json", [&] {
    ids = tokenizer.encode(kSample, true, true);
    tokenizer.decode(ids, false);
    tokenizer.decode(ids, true);
  });
  return ids;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  std::string_view json(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::optional<std::string_view> config;
  if ((data[0] & 1) != 0) {
    const size_t nul = json.find('\0');
    if (nul != std::string_view::npos) {
      config = json.substr(nul + 1);
      json = json.substr(0, nul);
    }
  }
  llm::HfTokenizerData loaded;
  if (!returns_or_throws<llm::TokenizerError>("parse_hf_tokenizer", [&] {
        loaded = llm::parse_hf_tokenizer(json, "tokenizer.json", config);
      })) {
    return 0;
  }
  const llm::Vocab vocab = loaded.vocab;
  std::unique_ptr<llm::Tokenizer> tokenizer;
  if (!returns_or_throws<llm::TokenizerError>("building a tokenizer from tokenizer.json",
                                              [&] { tokenizer = make_tokenizer(loaded.vocab); })) {
    return 0;
  }
  const std::vector<int32_t> ids = sample_ids(*tokenizer);
  std::string written;
  returns_or_throws<>("hf_tokenizer_json_text",
                      [&] { written = llm::hf_tokenizer_json_text(vocab); });
  llm::HfTokenizerData again;
  returns_or_throws<>("parse_hf_tokenizer of hf_tokenizer_json_text's output", [&] {
    again = llm::parse_hf_tokenizer(written, "written.json",
                                    llm::hf_tokenizer_config_text(vocab, loaded.chat_template));
  });
  std::unique_ptr<llm::Tokenizer> reread;
  returns_or_throws<>("building a tokenizer from the written tokenizer.json",
                      [&] { reread = make_tokenizer(std::move(again.vocab)); });
  llm::fuzz::require(sample_ids(*reread) == ids,
                     "a tokenizer.json written and read back encodes differently", written);
  return 0;
}
