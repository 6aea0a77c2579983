// Fuzz target: Tokenizer encode/decode and the StreamingDetokenizer on arbitrary bytes, with the
// real vocabularies of the shared test data (ggml-vocab-{llama-bpe,llama-spm,gpt-2,qwen2}.gguf,
// found beside the source tree as the tests find them, or under $LLM_TOKENIZER_DATA; the target
// exits cleanly when none is there). Byte 0: bits 0-1 the vocabulary, bit 2 add_special_tokens,
// bit 3 parse_special, bit 4 skip_special_tokens, bit 5 whether the rest is text to encode or
// token ids to decode (3 bytes each, modulo the vocabulary size).
// Checks: encode and decode do not throw and decode's text is valid UTF-8 (tokenizer.h); encode's
// ids are in the vocabulary; the streaming detokenizer's pushes plus flush equal decode
// (streaming_detokenizer.h) and never hold half a character; valid UTF-8 text encoded without
// special tokens decodes back to itself ("decode(encode(text)) == text"; for SentencePiece
// vocabularies, unless the text holds U+2581, its space mark).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/tokenizer/streaming_detokenizer.h"
#include "backends/tokenizer/tokenizer.h"
#include "fuzz/fuzz_util.h"

namespace {

using llm::fuzz::require;

std::vector<std::unique_ptr<llm::Tokenizer>> g_tokenizers;

void check_decode(const llm::Tokenizer& tok, const std::vector<int32_t>& ids, bool skip) {
  std::string text;
  llm::fuzz::returns_or_throws<>("Tokenizer::decode", [&] { text = tok.decode(ids, skip); });
  require(llm::fuzz::is_valid_utf8(text), "decode returned invalid UTF-8", text);
  for (const bool strip : {true, false}) {
    std::string streamed;
    llm::fuzz::returns_or_throws<>("StreamingDetokenizer", [&] {
      llm::StreamingDetokenizer stream(tok, skip, strip);
      for (const int32_t id : ids) {
        const std::string piece = stream.push(id);
        require(llm::fuzz::is_valid_utf8(piece), "a streamed piece is invalid UTF-8", piece);
        streamed += piece;
      }
      streamed += stream.flush();
    });
    require(llm::fuzz::is_valid_utf8(streamed), "the streamed text is invalid UTF-8", streamed);
    if (strip) require(streamed == text, "the streamed text differs from decode", streamed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  for (const char* name : {"llama-bpe", "llama-spm", "gpt-2", "qwen2"}) {
    const std::string path = llm::fuzz::shared_vocab_path(name);
    if (std::filesystem::exists(path)) g_tokenizers.push_back(llm::Tokenizer::from_gguf_file(path));
  }
  if (g_tokenizers.empty()) llm::fuzz::skip_unless_exists(llm::fuzz::shared_vocab_path("*"));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const llm::Tokenizer& tok = *g_tokenizers[(data[0] & 3) % g_tokenizers.size()];
  const bool add_special = (data[0] & 4) != 0;
  const bool parse_special = (data[0] & 8) != 0;
  const bool skip_special = (data[0] & 16) != 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<int32_t> ids;
  if ((data[0] & 32) != 0) {
    for (size_t i = 0; i + 3 <= rest.size(); i += 3) {
      const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(rest[k])); };
      const uint32_t v = b(i) | b(i + 1) << 8 | b(i + 2) << 16;
      ids.push_back(static_cast<int32_t>(v % static_cast<uint32_t>(tok.vocab_size())));
    }
    check_decode(tok, ids, skip_special);
    return 0;
  }
  llm::fuzz::returns_or_throws<>("Tokenizer::encode",
                                 [&] { ids = tok.encode(rest, add_special, parse_special); });
  for (const int32_t id : ids) {
    require(id >= 0 && id < tok.vocab_size(), "encode returned an id outside the vocabulary");
  }
  check_decode(tok, ids, skip_special);
  // SentencePiece writes spaces as U+2581, so a U+2581 in the text decodes as a space (as in
  // llama.cpp and Hugging Face): such texts are left out of the round trip.
  const bool spm_space_mark =
      tok.vocab().model == "llama" && rest.find("\xe2\x96\x81") != std::string_view::npos;
  if (!add_special && !parse_special && !spm_space_mark && llm::fuzz::is_valid_utf8(rest)) {
    std::string back;
    llm::fuzz::returns_or_throws<>("Tokenizer::decode", [&] { back = tok.decode(ids, false); });
    require(back == rest, "decode(encode(text)) differs from the text", back);
  }
  return 0;
}
