// "Did you mean" for command lines: the known name nearest to a mistyped one (an unknown flag, an
// unknown llmsim command), by edit distance, and only when it is close enough to be a typo.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llm {

// Insertions, deletions, substitutions and swaps of two neighbouring characters, each costing 1
// (the optimal-string-alignment distance): "--max-num-seq" is 1 from "--max-num-seqs".
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` when at most max(1, L / 3) edits away, L being the length of
// `word` without its leading dashes (so a short word has to be nearly right); the first in
// `candidates`' order among equals; empty when none is that close.
std::string nearest_name(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace llm
