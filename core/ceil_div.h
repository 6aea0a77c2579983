// Integer division rounded up: how many blocks of `b` cover `a` (a >= 0, b > 0), e.g. KV-cache
// blocks for a number of tokens or tiles for a number of rows.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>

namespace llm {

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace llm
