#include "backends/formats/float_convert.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace llm {
namespace {

uint16_t load_u16(const std::byte* p) {
  return static_cast<uint16_t>(std::to_integer<uint16_t>(p[0]) |
                               (std::to_integer<uint16_t>(p[1]) << 8));
}

void store_u16(std::byte* p, uint16_t v) {
  p[0] = static_cast<std::byte>(v & 0xff);
  p[1] = static_cast<std::byte>(v >> 8);
}

}  // namespace

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0x1f) {  // inf / NaN
    bits = sign | 0x7f800000u | (mant << 13);
  } else if (exp != 0) {  // normal
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {  // zero
    bits = sign;
  } else {  // subnormal: mant * 2^-24, exact in fp32
    const float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  return std::bit_cast<float>(bits);
}

uint16_t f32_to_f16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  const uint32_t abs = bits & 0x7fffffffu;
  if (abs > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00);   // NaN
  if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00);  // rounds to inf
  if (abs < 0x38800000u) {
    // Below the smallest normal f16 (2^-14): a subnormal, multiple of 2^-24. Rounding to an
    // integer count of 2^-24 with ties to even is what nearbyint does in the default mode.
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;  // exact: power-of-two scale
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(scaled)));
  }
  // Normal: drop 13 mantissa bits with round-to-nearest-even; a carry into the exponent is right.
  const uint32_t rebias = abs - (112u << 23);
  const uint32_t round = 0xfffu + ((rebias >> 13) & 1u);
  return static_cast<uint16_t>(sign | ((rebias + round) >> 13));
}

float bf16_to_f32(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }

uint16_t f32_to_bf16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x0040);
  const uint32_t round = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>((bits + round) >> 16);
}

void f16_bytes_to_f32(std::span<const std::byte> bytes, float* out) {
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) out[i / 2] = f16_to_f32(load_u16(&bytes[i]));
}

void bf16_bytes_to_f32(std::span<const std::byte> bytes, float* out) {
  for (size_t i = 0; i + 1 < bytes.size(); i += 2) out[i / 2] = bf16_to_f32(load_u16(&bytes[i]));
}

std::vector<std::byte> f32_to_f16_bytes(std::span<const float> values) {
  std::vector<std::byte> out(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) store_u16(&out[2 * i], f32_to_f16(values[i]));
  return out;
}

std::vector<std::byte> f32_to_bf16_bytes(std::span<const float> values) {
  std::vector<std::byte> out(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) store_u16(&out[2 * i], f32_to_bf16(values[i]));
  return out;
}

std::vector<std::byte> f32_to_bytes(std::span<const float> values) {
  std::vector<std::byte> out(values.size() * 4);
  if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());  // little-endian host
  return out;
}

void q8_0_bytes_to_f32(std::span<const std::byte> bytes, float* out) {
  for (size_t b = 0; b + kQ8_0BlockBytes <= bytes.size(); b += kQ8_0BlockBytes) {
    const float d = f16_to_f32(load_u16(&bytes[b]));
    for (size_t j = 0; j < kQ8_0BlockElems; ++j) {
      *out++ =
          d * static_cast<float>(static_cast<int8_t>(std::to_integer<uint8_t>(bytes[b + 2 + j])));
    }
  }
}

std::vector<std::byte> f32_to_q8_0_bytes(std::span<const float> values) {
  if (values.size() % kQ8_0BlockElems != 0) {
    throw std::invalid_argument("Q8_0 needs a multiple of 32 values, got " +
                                std::to_string(values.size()));
  }
  std::vector<std::byte> out(values.size() / kQ8_0BlockElems * kQ8_0BlockBytes);
  for (size_t blk = 0; blk < values.size() / kQ8_0BlockElems; ++blk) {
    const float* x = &values[blk * kQ8_0BlockElems];
    float amax = 0;
    for (size_t j = 0; j < kQ8_0BlockElems; ++j) amax = std::max(amax, std::fabs(x[j]));
    const float d = amax / 127.0f;
    const float inv = d != 0 ? 1.0f / d : 0.0f;
    std::byte* o = &out[blk * kQ8_0BlockBytes];
    store_u16(o, f32_to_f16(d));
    for (size_t j = 0; j < kQ8_0BlockElems; ++j) {
      const long q = std::lround(x[j] * inv);
      o[2 + j] = static_cast<std::byte>(static_cast<uint8_t>(static_cast<int8_t>(q)));
    }
  }
  return out;
}

}  // namespace llm
