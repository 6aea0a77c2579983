#include "backends/tokenizer/bpe_tokenizer.h"

#include "backends/tokenizer/byte_unicode.h"
#include "backends/tokenizer/symbol_merge.h"
#include "backends/tokenizer/utf8.h"

namespace llm {

BpeTokenizer::BpeTokenizer(Vocab vocab) : Tokenizer(std::move(vocab)) {
  PretokenizerKind kind;
  try {
    kind = pretokenizer_kind_from_name(vocab_.pre);
    pretokenizer_ = std::make_unique<Pretokenizer>(kind);
  } catch (const std::exception& e) {
    throw TokenizerError(e.what());
  }
  ignore_merges_ = kind == PretokenizerKind::kLlama3;
  merge_ranks_.reserve(vocab_.merges.size());
  for (size_t i = 0; i < vocab_.merges.size(); ++i) {
    const std::string& m = vocab_.merges[i];
    const size_t space = m.find(' ', 1);
    if (space == std::string::npos || space + 1 >= m.size()) {
      throw TokenizerError("malformed merge " + std::to_string(i) + ": '" + m + "'");
    }
    merge_ranks_.emplace(m, static_cast<int>(i));  // first occurrence wins
  }
}

int BpeTokenizer::merge_rank(std::string_view left, std::string_view right,
                             std::string& scratch) const {
  scratch.assign(left);
  scratch += ' ';
  scratch.append(right);
  const auto it = merge_ranks_.find(scratch);
  return it == merge_ranks_.end() ? -1 : it->second;
}

void BpeTokenizer::encode_word(std::string_view raw_word, std::vector<int32_t>& out) const {
  const std::string word = bytes_to_unicode_text(raw_word);
  if (ignore_merges_) {
    const int32_t id = vocab_.find(word);
    if (id >= 0) {
      out.push_back(id);
      return;
    }
  }
  std::string scratch;
  const auto pieces = merge_symbols(
      word, [&](std::string_view left, std::string_view right) -> std::optional<double> {
        const int rank = merge_rank(left, right, scratch);
        if (rank < 0) return std::nullopt;
        return -static_cast<double>(rank);  // lower rank merges first
      });
  for (const std::string_view piece : pieces) {
    const int32_t id = vocab_.find(piece);
    if (id >= 0) {
      out.push_back(id);
      continue;
    }
    // Not a token (an incomplete vocabulary): fall back to one token per character.
    for (size_t pos = 0; pos < piece.size();) {
      const size_t len =
          std::min(utf8_lead_len(static_cast<uint8_t>(piece[pos])), piece.size() - pos);
      const int32_t cid = vocab_.find(piece.substr(pos, len));
      if (cid >= 0) {
        out.push_back(cid);
      } else if (vocab_.unk_id >= 0) {
        out.push_back(vocab_.unk_id);
      }
      pos += len;
    }
  }
}

std::vector<int32_t> BpeTokenizer::encode_text(std::string_view text) const {
  std::vector<int32_t> out;
  if (text.empty()) return out;
  std::string repaired;
  if (!utf8_is_valid(text)) {
    repaired = utf8_sanitize(text);
    text = repaired;
  }
  for (std::string_view word : pretokenizer_->split(text)) encode_word(word, out);
  return out;
}

std::string BpeTokenizer::normal_piece(int32_t id) const {
  const std::string& text = vocab_.tokens[static_cast<size_t>(id)];
  std::string out;
  out.reserve(text.size());
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  for (size_t i = 0; i < text.size();) {
    const int n = utf8_check(p + i, text.size() - i);
    if (n <= 0) {  // malformed token text: copy the byte
      out += text[i++];
      continue;
    }
    const int b = unicode_to_byte(utf8_decode_valid(p + i, n));
    if (b >= 0) {
      out += static_cast<char>(b);
    } else {
      out.append(text, i, static_cast<size_t>(n));
    }
    i += static_cast<size_t>(n);
  }
  return out;
}

}  // namespace llm
