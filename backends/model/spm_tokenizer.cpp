#include "backends/model/spm_tokenizer.h"

#include <cstdio>
#include <queue>

#include "backends/model/utf8.h"

namespace llm {

namespace {

constexpr std::string_view kSpace = "\xE2\x96\x81";  // "▁" U+2581

struct Symbol {
  int prev;
  int next;
  size_t start;
  size_t len;  // 0 once merged into its left neighbour
};

struct Bigram {
  int left;
  int right;
  float score;
  size_t len;
};

struct BigramOrder {  // priority_queue top: highest score, then leftmost
  bool operator()(const Bigram& a, const Bigram& b) const {
    return a.score < b.score || (a.score == b.score && a.left > b.left);
  }
};

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

  std::vector<Symbol> symbols;
  for (size_t pos = 0; pos < text.size();) {
    const size_t len = std::min(utf8_lead_len(static_cast<uint8_t>(text[pos])), text.size() - pos);
    const int index = static_cast<int>(symbols.size());
    symbols.push_back(Symbol{index - 1, index + 1, pos, len});
    pos += len;
  }
  symbols.back().next = -1;

  std::priority_queue<Bigram, std::vector<Bigram>, BigramOrder> queue;
  auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const size_t len = symbols[left].len + symbols[right].len;
    const int32_t id = vocab_.find(std::string_view(text).substr(symbols[left].start, len));
    if (id < 0) return;
    queue.push(Bigram{left, right, vocab_.scores[static_cast<size_t>(id)], len});
  };
  for (size_t i = 1; i < symbols.size(); ++i) try_add(static_cast<int>(i) - 1, static_cast<int>(i));

  while (!queue.empty()) {
    const Bigram b = queue.top();
    queue.pop();
    Symbol& left = symbols[b.left];
    Symbol& right = symbols[b.right];
    // Stale entry: one side was merged away or grew since the pair was queued.
    if (left.len == 0 || right.len == 0 || left.len + right.len != b.len) continue;
    left.len += right.len;
    right.len = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = b.left;
    try_add(left.prev, b.left);
    try_add(b.left, left.next);
  }

  for (int i = 0; i >= 0; i = symbols[i].next) {
    const std::string_view piece = std::string_view(text).substr(symbols[i].start, symbols[i].len);
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
