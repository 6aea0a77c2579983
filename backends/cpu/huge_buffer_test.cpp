#include "backends/cpu/huge_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace llm {
namespace {

TEST(HugeBuffer, SmallBuffersAreLineAlignedAndLargeOnesPageAligned) {
  for (const size_t n :
       {size_t{0}, size_t{1}, size_t{1000}, size_t{1} << 19, (size_t{1} << 20) + 3}) {
    FloatBuffer b = allocate_floats(n);
    ASSERT_NE(b.get(), nullptr) << n;
    const auto address = reinterpret_cast<uintptr_t>(b.get());
    const uintptr_t want = n * sizeof(float) >= (size_t{1} << 21) ? uintptr_t{1} << 21 : 64;
    EXPECT_EQ(address % want, 0u) << n << " floats";
    for (size_t i = 0; i < n; i += 4096) b[i] = static_cast<float>(i);  // every page writable
    if (n > 0) b[n - 1] = 1.0f;
  }
}

}  // namespace
}  // namespace llm
