// A PromQL expression cut into tokens, as far as llmsim alerts needs to read one: identifiers
// (metric, label, function and keyword names, [a-zA-Z_:][a-zA-Z0-9_:]*), strings ("...", '...',
// `...`), numbers and durations (5, 0.05, 1e-3, 5m, 1h30m), and single punctuation characters;
// white space and # comments are dropped. Each token is a range of the text, so that callers can
// copy the text between tokens as written (recording_inline.h, promql_selectors.h).
// Thread-safety: pure function.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace llm {

struct PromToken {
  enum class Kind { kIdentifier, kString, kNumber, kPunct };
  Kind kind = Kind::kPunct;
  size_t begin = 0;  // [begin, end) in the expression
  size_t end = 0;
};

// Never throws: an unterminated string runs to the end of the text.
std::vector<PromToken> promql_tokens(std::string_view expr);

}  // namespace llm
