// The merge loop both BPE tokenizers share: split a text into UTF-8 characters, then repeatedly
// merge the adjacent pair with the highest priority (ties to the leftmost) until no pair may
// merge. SentencePiece ranks pairs by the merged token's score, byte-level BPE by merge rank.
// Thread-safety: pure function.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace llm {

// `priority(left, right)` gets two adjacent pieces (views into `text`) and returns their merge
// priority, or nullopt when they may not merge. Returns the final pieces in order.
std::vector<std::string_view> merge_symbols(
    std::string_view text,
    const std::function<std::optional<double>(std::string_view, std::string_view)>& priority);

}  // namespace llm
