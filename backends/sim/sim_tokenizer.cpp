#include "backends/sim/sim_tokenizer.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/rng.h"

namespace llm {
namespace {

constexpr std::array<std::string_view, 128> kWords = {
    " the",     " of",    " and",   " to",     " a",     " in",    " is",    " it",    " you",
    " that",    " he",    " was",   " for",    " on",    " are",   " with",  " as",    " I",
    " his",     " they",  " be",    " at",     " one",   " have",  " this",  " from",  " or",
    " had",     " by",    " word",  " but",    " what",  " some",  " we",    " can",   " out",
    " other",   " were",  " all",   " there",  " when",  " up",    " use",   " your",  " how",
    " said",    " an",    " each",  " she",    " which", " do",    " their", " time",  " if",
    " will",    " way",   " about", " many",   " then",  " them",  " write", " would", " like",
    " so",      " these", " her",   " long",   " make",  " thing", " see",   " him",   " two",
    " has",     " look",  " more",  " day",    " could", " go",    " come",  " did",   " number",
    " sound",   " no",    " most",  " people", " my",    " over",  " know",  " water", " than",
    " call",    " first", " who",   " may",    " down",  " side",  " been",  " now",   " find",
    " any",     " new",   " work",  " part",   " take",  " get",   " place", " made",  " live",
    " where",   " after", " back",  " little", " only",  " round", " man",   " year",  " came",
    " show",    " every", " good",  " me",     " give",  " our",   " under", " name",  " very",
    " through", ".",
};

bool is_word_byte(unsigned char c) { return std::isalnum(c) || c >= 0x80 || c == '_'; }

uint64_t piece_hash(std::string_view piece) {
  uint64_t h = 0x736974'6f6b656eULL;  // "sitoken"
  for (unsigned char c : piece) h = hash_combine(h, c);
  return h;
}

}  // namespace

SimTokenizer::SimTokenizer(int64_t vocab_size)
    : vocab_(std::max<int64_t>(vocab_size, 2)), eos_(static_cast<int32_t>(vocab_ - 1)) {}

std::vector<int32_t> SimTokenizer::encode(std::string_view text) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 4 + 1);
  const uint64_t range = static_cast<uint64_t>(eos_);  // ids 0 .. eos-1
  size_t i = 0;
  while (i < text.size()) {
    size_t j = i;
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == ' ' && i + 1 < text.size() && is_word_byte(static_cast<unsigned char>(text[i + 1]))) {
      j = i + 1;
      while (j < text.size() && j - i < 16 && is_word_byte(static_cast<unsigned char>(text[j])))
        ++j;
    } else if (is_word_byte(c)) {
      while (j < text.size() && j - i < 16 && is_word_byte(static_cast<unsigned char>(text[j])))
        ++j;
    } else if (std::isspace(c)) {
      while (j < text.size() && j - i < 16 && std::isspace(static_cast<unsigned char>(text[j])) &&
             !(text[j] == ' ' && j + 1 < text.size() &&
               is_word_byte(static_cast<unsigned char>(text[j + 1])))) {
        ++j;
      }
      if (j == i) j = i + 1;
    } else {
      j = i + 1;
    }
    ids.push_back(static_cast<int32_t>(piece_hash(text.substr(i, j - i)) % range));
    i = j;
  }
  return ids;
}

std::string_view SimTokenizer::piece(int32_t id) const {
  if (id == eos_ || id < 0) return {};
  return kWords[static_cast<size_t>(id) % kWords.size()];
}

std::string SimTokenizer::decode(const std::vector<int32_t>& ids) const {
  std::string text;
  for (int32_t id : ids) text += piece(id);
  return text;
}

uint64_t SimTokenizer::prompt_hash(const std::vector<int32_t>& prompt) {
  uint64_t h = 0x70726f6d7074ULL;  // "prompt"
  for (int32_t t : prompt) h = hash_combine(h, static_cast<uint32_t>(t));
  return h;
}

int64_t SimTokenizer::natural_output_len(const std::vector<int32_t>& prompt, uint64_t seed) {
  return natural_output_len(prompt_hash(prompt), seed);
}

int64_t SimTokenizer::natural_output_len(uint64_t prompt_hash, uint64_t seed) {
  return 8 + static_cast<int64_t>(hash_combine(prompt_hash, seed) % 120);
}

}  // namespace llm
