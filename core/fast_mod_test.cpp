// FastMod: equals the % operator for every 64-bit dividend, at the edges (0, d - 1, d, multiples,
// UINT64_MAX; divisors 1, powers of two, a vocabulary size, UINT64_MAX) and for random operands.
#include "core/fast_mod.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>

namespace llm {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

TEST(FastMod, EqualsTheRemainderAtTheEdges) {
  const uint64_t divisors[] = {
      1,        2,   3, 7, 16, 1000, 128255, 151935, uint64_t{1} << 32, (uint64_t{1} << 63) + 1,
      kMax - 1, kMax};
  for (const uint64_t d : divisors) {
    const FastMod mod(d);
    const uint64_t xs[] = {0, 1, d - 1, d, d + 1, 2 * d, 3 * d - 1, kMax / d * d, kMax - 1, kMax};
    for (const uint64_t x : xs) EXPECT_EQ(mod(x), x % d) << x << " % " << d;
  }
}

TEST(FastMod, RefusesDivisorZero) { EXPECT_THROW(FastMod(0), std::invalid_argument); }

RC_GTEST_PROP(FastMod, EqualsTheRemainderOperator, (uint64_t x, uint64_t d)) {
  RC_PRE(d != 0);
  RC_ASSERT(FastMod(d)(x) == x % d);
  const uint64_t small = d % 200000 + 1;  // vocabulary-sized divisors
  RC_ASSERT(FastMod(small)(x) == x % small);
}

}  // namespace
}  // namespace llm
