// One GGUF metadata value: a scalar, a string, or an array (of scalars, strings or arrays).
// Thread-safety: immutable after construction; const methods are safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/formats/gguf_types.h"

namespace llm {

class GgufValue {
 public:
  GgufValue() = default;
  static GgufValue from_u64(GgufType type, uint64_t v);  // unsigned integer types
  static GgufValue from_i64(GgufType type, int64_t v);   // signed integer types
  static GgufValue from_f64(GgufType type, double v);    // FLOAT32 / FLOAT64
  static GgufValue from_bool(bool v);
  static GgufValue from_string(std::string v);
  static GgufValue from_array(GgufType elem_type, std::vector<GgufValue> items);

  GgufType type() const { return type_; }
  GgufType elem_type() const { return elem_type_; }  // arrays only

  bool is_integer() const { return gguf_type_is_integer(type_); }
  bool is_float() const { return type_ == GgufType::kFloat32 || type_ == GgufType::kFloat64; }
  // The value as a signed 64-bit integer, or nullopt if not an integer or out of range.
  std::optional<int64_t> as_i64() const;
  std::optional<uint64_t> as_u64() const;
  std::optional<double> as_f64() const;  // floats and integers
  std::optional<bool> as_bool() const;
  const std::string* as_string() const;            // nullptr unless a string
  const std::vector<GgufValue>* as_array() const;  // nullptr unless an array

  std::string to_debug_string(size_t max_items = 8) const;
  bool operator==(const GgufValue& other) const;

 private:
  GgufType type_ = GgufType::kUint8;
  GgufType elem_type_ = GgufType::kUint8;
  bool negative_ = false;  // signed types: the value in bits_ is a negative int64
  uint64_t bits_ = 0;      // integers (two's complement for signed), bool
  double f_ = 0;
  std::string str_;
  std::vector<GgufValue> items_;
};

}  // namespace llm
