// ceil_div: exact multiples, one past, and zero.
#include "core/ceil_div.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(CeilDiv, RoundsUpToWholeBlocks) {
  const struct {
    int64_t a, b, blocks;
  } cases[] = {{0, 16, 0}, {1, 16, 1}, {16, 16, 1}, {17, 16, 2}, {32, 16, 2}, {5, 1, 5}};
  for (const auto& c : cases) EXPECT_EQ(ceil_div(c.a, c.b), c.blocks) << c.a << " / " << c.b;
}

}  // namespace
}  // namespace llm
