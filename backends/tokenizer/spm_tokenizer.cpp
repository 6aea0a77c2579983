#include "backends/tokenizer/spm_tokenizer.h"

#include <cstdio>

#include "backends/tokenizer/symbol_merge.h"

namespace llm {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // "▁" U+2581

}  // namespace

SpmTokenizer::SpmTokenizer(Vocab vocab) : Tokenizer(std::move(vocab)) {
  for (int b = 0; b < 256; ++b) {
    char text[8];
    std::snprintf(text, sizeof(text), "<0x%02X>", b);
    byte_tokens_[static_cast<size_t>(b)] = vocab_.find(text);
  }
}

void SpmTokenizer::emit_bytes(std::string_view text, std::vector<int32_t>& out) const {
  for (char c : text) {
    const int32_t id = byte_tokens_[static_cast<uint8_t>(c)];
    if (id >= 0) {
      out.push_back(id);
    } else if (vocab_.unk_id >= 0) {
      out.push_back(vocab_.unk_id);
    }
  }
}

std::vector<int32_t> SpmTokenizer::encode_text(std::string_view raw) const {
  std::vector<int32_t> out;
  if (raw.empty()) return out;
  std::string text;
  text.reserve(raw.size() + 16);
  if (vocab_.add_space_prefix) text += kSpace;
  for (char c : raw) {
    if (c == ' ') {
      text += kSpace;
    } else {
      text += c;
    }
  }

  const auto pieces = merge_symbols(
      text, [&](std::string_view left, std::string_view right) -> std::optional<double> {
        // Adjacent views into one text: the merged piece spans both.
        const int32_t id = vocab_.find(std::string_view(left.data(), left.size() + right.size()));
        if (id < 0) return std::nullopt;
        return vocab_.scores[static_cast<size_t>(id)];
      });
  for (const std::string_view piece : pieces) {
    const int32_t id = vocab_.find(piece);
    if (id >= 0) {
      out.push_back(id);
    } else {
      emit_bytes(piece, out);
    }
  }
  return out;
}

std::string SpmTokenizer::normal_piece(int32_t id) const {
  const std::string& text = vocab_.tokens[static_cast<size_t>(id)];
  if (vocab_.type(id) == TokenType::kByte) {
    unsigned value = 0;
    if (text.size() == 6 && std::sscanf(text.c_str(), "<0x%2X>", &value) == 1) {
      return std::string(1, static_cast<char>(value));
    }
    return text;
  }
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text.compare(i, kSpace.size(), kSpace) == 0) {
      out += ' ';
      i += kSpace.size();
    } else {
      out += text[i++];
    }
  }
  return out;
}

}  // namespace llm
