#include "backends/tokenizer/pretokenizer.h"

#include <stdexcept>

#if __has_include(<pcre2.h>)
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#define LLM_HAVE_PCRE2 1
#endif

#include "backends/tokenizer/utf8.h"

namespace llm {

namespace {

// GPT-2: the pattern of OpenAI's gpt-2 encoder (src/encoder.py), used by GPT-2's tokenizer.json.
constexpr const char* kGpt2Regex =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
// Llama 3: the pat_str of Meta's llama3 tokenizer.py (tiktoken), also in Llama 3's
// tokenizer.json: case-insensitive contractions, numbers in groups of up to three digits.
constexpr const char* kLlama3Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Qwen2: PRETOKENIZE_REGEX of Hugging Face's tokenization_qwen2.py (Qwen2's tokenizer.json):
// as Llama 3's but every digit is a word of its own.
constexpr const char* kQwen2Regex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

}  // namespace

PretokenizerKind pretokenizer_kind_from_name(const std::string& name) {
  if (name.empty() || name == "gpt2" || name == "gpt-2" || name == "default") {
    return PretokenizerKind::kGpt2;
  }
  if (name == "llama-bpe" || name == "llama3") return PretokenizerKind::kLlama3;
  if (name == "qwen2") return PretokenizerKind::kQwen2;
  throw std::invalid_argument("unsupported pre-tokenizer '" + name +
                              "' (supported: gpt2, llama-bpe, qwen2)");
}

const char* pretokenizer_regex(PretokenizerKind kind) {
  switch (kind) {
    case PretokenizerKind::kGpt2:
      return kGpt2Regex;
    case PretokenizerKind::kLlama3:
      return kLlama3Regex;
    case PretokenizerKind::kQwen2:
      return kQwen2Regex;
  }
  return kGpt2Regex;
}

#ifdef LLM_HAVE_PCRE2

struct Pretokenizer::Impl {
  pcre2_code* code = nullptr;
  ~Impl() {
    if (code) pcre2_code_free(code);
  }
};

Pretokenizer::Pretokenizer(PretokenizerKind kind) : impl_(std::make_unique<Impl>()) {
  const char* pattern = pretokenizer_regex(kind);
  int err = 0;
  PCRE2_SIZE err_off = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern), PCRE2_ZERO_TERMINATED,
                              PCRE2_UTF | PCRE2_UCP, &err, &err_off, nullptr);
  if (!impl_->code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(err, msg, sizeof(msg));
    throw std::runtime_error(std::string("pre-tokenizer regex does not compile: ") +
                             reinterpret_cast<const char*>(msg));
  }
  pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE);  // optional speed-up; ignore failure
}

Pretokenizer::~Pretokenizer() = default;

std::vector<std::string_view> Pretokenizer::split(std::string_view text) const {
  std::vector<std::string_view> words;
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  if (!md) throw std::bad_alloc();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0;      // where the next search starts
  size_t emitted = 0;  // end of the last word
  while (pos < text.size()) {
    const int rc =
        pcre2_match(impl_->code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, md, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      pcre2_match_data_free(md);
      throw std::runtime_error("pre-tokenizer regex match failed (code " + std::to_string(rc) +
                               ")");
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t start = ov[0], end = ov[1];
    if (start > emitted) words.push_back(text.substr(emitted, start - emitted));
    if (end > start) {
      words.push_back(text.substr(start, end - start));
      emitted = end;
      pos = end;
    } else {  // empty match: step over one character
      emitted = start;
      pos = start + utf8_lead_len(static_cast<uint8_t>(text[start]));
    }
  }
  pcre2_match_data_free(md);
  if (emitted < text.size()) words.push_back(text.substr(emitted));
  return words;
}

#else

struct Pretokenizer::Impl {};

Pretokenizer::Pretokenizer(PretokenizerKind) {
  throw std::runtime_error(
      "byte-level BPE needs PCRE2: this build lacks libpcre2-8 (libpcre2-dev)");
}
Pretokenizer::~Pretokenizer() = default;
std::vector<std::string_view> Pretokenizer::split(std::string_view) const { return {}; }

#endif

}  // namespace llm
