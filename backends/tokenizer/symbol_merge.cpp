#include "backends/tokenizer/symbol_merge.h"

#include <algorithm>
#include <queue>

#include "backends/tokenizer/utf8.h"

namespace llm {
namespace {

struct Symbol {
  int prev;
  int next;
  size_t start;
  size_t len;  // 0 once merged into its left neighbour
};

struct Pair {
  int left;
  int right;
  double priority;
  size_t len;
};

struct PairOrder {  // priority_queue top: highest priority, then leftmost
  bool operator()(const Pair& a, const Pair& b) const {
    return a.priority < b.priority || (a.priority == b.priority && a.left > b.left);
  }
};

}  // namespace

std::vector<std::string_view> merge_symbols(
    std::string_view text,
    const std::function<std::optional<double>(std::string_view, std::string_view)>& priority) {
  std::vector<Symbol> symbols;
  for (size_t pos = 0; pos < text.size();) {
    const size_t len = std::min(utf8_lead_len(static_cast<uint8_t>(text[pos])), text.size() - pos);
    const int index = static_cast<int>(symbols.size());
    symbols.push_back(Symbol{index - 1, index + 1, pos, len});
    pos += len;
  }
  std::vector<std::string_view> pieces;
  if (symbols.empty()) return pieces;
  symbols.back().next = -1;

  std::priority_queue<Pair, std::vector<Pair>, PairOrder> queue;
  auto try_add = [&](int left, int right) {
    if (left < 0 || right < 0) return;
    const Symbol& l = symbols[left];
    const Symbol& r = symbols[right];
    const auto p = priority(text.substr(l.start, l.len), text.substr(r.start, r.len));
    if (p) queue.push(Pair{left, right, *p, l.len + r.len});
  };
  for (size_t i = 1; i < symbols.size(); ++i) try_add(static_cast<int>(i) - 1, static_cast<int>(i));

  while (!queue.empty()) {
    const Pair p = queue.top();
    queue.pop();
    Symbol& left = symbols[p.left];
    Symbol& right = symbols[p.right];
    // Stale entry: one side was merged away or grew since the pair was queued.
    if (left.len == 0 || right.len == 0 || left.next != p.right || left.len + right.len != p.len) {
      continue;
    }
    left.len += right.len;
    right.len = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = p.left;
    try_add(left.prev, p.left);
    try_add(p.left, left.next);
  }

  for (int i = 0; i >= 0; i = symbols[i].next) {
    pieces.push_back(text.substr(symbols[i].start, symbols[i].len));
  }
  return pieces;
}

}  // namespace llm
