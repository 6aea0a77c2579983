// f16/bf16 conversions against hand-computed bit patterns (rounding ties to even, subnormals,
// overflow), exhaustive round trips over all 65536 codes, and Q8_0 on a hand-made block.
#include "backends/formats/float_convert.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>

namespace llm {
namespace {

TEST(FloatConvert, F16KnownValues) {
  EXPECT_EQ(f32_to_f16(0.0f), 0x0000);
  EXPECT_EQ(f32_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(f32_to_f16(1.0f), 0x3c00);
  EXPECT_EQ(f32_to_f16(-2.0f), 0xc000);
  EXPECT_EQ(f32_to_f16(0.5f), 0x3800);
  EXPECT_EQ(f32_to_f16(65504.0f), 0x7bff);  // largest finite
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7bff);  // below the halfway point
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);  // halfway: ties to even = inf
  EXPECT_EQ(f32_to_f16(1e9f), 0x7c00);      // overflow
  EXPECT_EQ(f32_to_f16(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -14)), 0x0400);         // smallest normal
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -24)), 0x0001);         // smallest subnormal
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);         // tie -> even (0)
  EXPECT_EQ(f32_to_f16(std::ldexp(3.0f, -25)), 0x0002);         // tie -> even (2)
  EXPECT_EQ(f32_to_f16(std::ldexp(1023.5f, -24)), 0x0400);      // rounds up into the normals
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie -> even (down)
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(3.0f, -11)), 0x3c02);  // tie -> even (up)
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.1f, -11)), 0x3c01);  // above the tie
  EXPECT_EQ(f32_to_f16(1.9996f), 0x4000);  // rounds up with a carry into the exponent
  EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_EQ(f16_to_f32(0x3555), 0.333251953125f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16_to_f32(0x83ff), -std::ldexp(1023.0f, -24));
}

TEST(FloatConvert, EveryF16CodeRoundTrips) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const float f = f16_to_f32(static_cast<uint16_t>(h));
    if (std::isnan(f)) {
      EXPECT_EQ((h >> 10) & 0x1f, 0x1fu);
      continue;
    }
    ASSERT_EQ(f32_to_f16(f), h) << "f16 code " << h << " = " << f;
  }
}

TEST(FloatConvert, EveryBf16CodeRoundTripsAndRoundingTiesToEven) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const float f = bf16_to_f32(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(f32_to_bf16(f), b) << "bf16 code " << b;
  }
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);        // tie -> even (down)
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(3.0f, -8)), 0x3f82);        // tie -> even (up)
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7f80);  // rounds to inf
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(FloatConvert, ByteBuffersAreLittleEndian) {
  const std::vector<float> v = {1.0f, -2.0f};
  const std::vector<std::byte> h = f32_to_f16_bytes(v);
  ASSERT_EQ(h.size(), 4u);
  EXPECT_EQ(h[0], std::byte{0x00});
  EXPECT_EQ(h[1], std::byte{0x3c});
  EXPECT_EQ(h[3], std::byte{0xc0});
  float back[2];
  f16_bytes_to_f32(h, back);
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], -2.0f);
  bf16_bytes_to_f32(f32_to_bf16_bytes(v), back);
  EXPECT_EQ(back[1], -2.0f);
}

TEST(FloatConvert, Q8_0HandMadeBlock) {
  // d = 0.5 (f16 0x3800), q = -3, 0, 127, then 1s.
  std::vector<std::byte> block(kQ8_0BlockBytes, std::byte{1});
  block[0] = std::byte{0x00};
  block[1] = std::byte{0x38};
  block[2] = std::byte{0xfd};  // -3
  block[3] = std::byte{0x00};
  block[4] = std::byte{0x7f};
  std::vector<float> out(32);
  q8_0_bytes_to_f32(block, out.data());
  EXPECT_EQ(out[0], -1.5f);
  EXPECT_EQ(out[1], 0.0f);
  EXPECT_EQ(out[2], 63.5f);
  EXPECT_EQ(out[31], 0.5f);
}

TEST(FloatConvert, Q8_0QuantizeThenDequantizeIsClose) {
  std::vector<float> v(64);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(static_cast<float>(i)) * (i < 32 ? 1 : 3);
  v[40] = 0;
  const std::vector<std::byte> q = f32_to_q8_0_bytes(v);
  ASSERT_EQ(q.size(), 2 * kQ8_0BlockBytes);
  std::vector<float> back(64);
  q8_0_bytes_to_f32(q, back.data());
  for (size_t i = 0; i < v.size(); ++i) {
    const float amax = i < 32 ? 1.0f : 3.0f;
    EXPECT_NEAR(back[i], v[i], amax / 127.0f * 0.51f + 1e-3f) << i;
  }
  EXPECT_EQ(back[40], 0.0f);
  EXPECT_THROW(f32_to_q8_0_bytes(std::vector<float>(31)), std::invalid_argument);
  EXPECT_EQ(f32_to_q8_0_bytes(std::vector<float>(32, 0.0f))[5], std::byte{0});  // zero block
}

}  // namespace
}  // namespace llm
