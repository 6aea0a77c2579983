// Times for the alert tests (sim/alerts/*_test.cpp only): one second in nanoseconds and the
// simulated clock's start, 2026-01-01T00:00:00Z.
// Thread-safety: constants only.
#pragma once

#include <cstdint>

namespace llm::testing {

inline constexpr int64_t kS = 1'000'000'000;
inline constexpr int64_t kStart = 1'767'225'600 * kS;  // 2026-01-01T00:00:00Z

}  // namespace llm::testing
