// GGUF metadata value types and ggml tensor element types, with their on-disk sizes.
// Facts from the GGUF specification (ggml's docs/gguf.md): little-endian, value type codes 0..12,
// ggml type codes with their block sizes (elements per block, bytes per block).
// Thread-safety: pure functions and constants; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace llm {

enum class GgufType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
};

// "UINT8", "STRING", ...; "UNKNOWN(n)" for codes outside the enum.
std::string gguf_type_name(GgufType type);
bool gguf_type_known(uint32_t code);
// Bytes of a fixed-size scalar type; 0 for string and array.
uint32_t gguf_scalar_size(GgufType type);
bool gguf_type_is_integer(GgufType type);

enum class GgmlType : uint32_t {
  kF32 = 0,
  kF16 = 1,
  kQ4_0 = 2,
  kQ4_1 = 3,
  kQ5_0 = 6,
  kQ5_1 = 7,
  kQ8_0 = 8,
  kQ8_1 = 9,
  kQ2_K = 10,
  kQ3_K = 11,
  kQ4_K = 12,
  kQ5_K = 13,
  kQ6_K = 14,
  kQ8_K = 15,
  kI8 = 24,
  kI16 = 25,
  kI32 = 26,
  kI64 = 27,
  kF64 = 28,
  kBF16 = 30,
};

struct GgmlTypeTraits {
  const char* name;
  uint32_t block_elems;  // elements per block (1 for plain types)
  uint32_t block_bytes;  // bytes per block
};

// Traits of a ggml type code this reader knows; nullopt for other codes.
std::optional<GgmlTypeTraits> ggml_type_traits(uint32_t code);

}  // namespace llm
