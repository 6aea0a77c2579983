// Conversions between fp32 and the 16-bit float formats model files use (IEEE binary16 "f16",
// bfloat16 "bf16"), and dequantization of ggml's Q8_0 blocks. Narrowing rounds to nearest, ties
// to even; NaN stays NaN. Byte buffers are little-endian, as in GGUF and safetensors.
// Thread-safety: pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace llm {

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
float bf16_to_f32(uint16_t b);
uint16_t f32_to_bf16(float f);

// Element-wise over whole buffers; `bytes` holds 2 bytes per value (sizes are checked by callers).
void f16_bytes_to_f32(std::span<const std::byte> bytes, float* out);
void bf16_bytes_to_f32(std::span<const std::byte> bytes, float* out);
std::vector<std::byte> f32_to_f16_bytes(std::span<const float> values);
std::vector<std::byte> f32_to_bf16_bytes(std::span<const float> values);
std::vector<std::byte> f32_to_bytes(std::span<const float> values);

// ggml Q8_0: blocks of 32 values, each an f16 scale d then 32 int8 q; value = d * q.
constexpr size_t kQ8_0BlockElems = 32;
constexpr size_t kQ8_0BlockBytes = 34;
// `bytes` holds bytes.size() / 34 whole blocks.
void q8_0_bytes_to_f32(std::span<const std::byte> bytes, float* out);
// values.size() must be a multiple of 32. d = max|x| / 127 (stored as f16), q = round(x / d).
std::vector<std::byte> f32_to_q8_0_bytes(std::span<const float> values);

}  // namespace llm
