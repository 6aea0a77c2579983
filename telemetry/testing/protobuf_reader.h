// A tiny protobuf wire-format reader for tests: splits one message into its fields (number, wire
// type, varint or fixed value, or the bytes of a length-delimited field), so a test can walk what
// otlp_protobuf.cpp wrote without generated code. Throws std::runtime_error on malformed input.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm::testing {

struct ProtoField {
  int number = 0;
  int wire_type = 0;
  uint64_t number_value = 0;  // varint, fixed64 or fixed32
  std::string bytes;          // length-delimited
};

inline uint64_t read_varint(const std::string& s, size_t& pos) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (pos >= s.size()) throw std::runtime_error("truncated varint");
    const uint8_t b = static_cast<uint8_t>(s[pos++]);
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) return v;
  }
  throw std::runtime_error("varint too long");
}

inline std::vector<ProtoField> read_fields(const std::string& s) {
  std::vector<ProtoField> out;
  size_t pos = 0;
  while (pos < s.size()) {
    const uint64_t tag = read_varint(s, pos);
    ProtoField f;
    f.number = static_cast<int>(tag >> 3);
    f.wire_type = static_cast<int>(tag & 7);
    if (f.wire_type == 0) {
      f.number_value = read_varint(s, pos);
    } else if (f.wire_type == 1 || f.wire_type == 5) {
      const size_t n = f.wire_type == 1 ? 8 : 4;
      if (pos + n > s.size()) throw std::runtime_error("truncated fixed field");
      for (size_t i = 0; i < n; ++i) {
        f.number_value |= static_cast<uint64_t>(static_cast<uint8_t>(s[pos + i])) << (8 * i);
      }
      pos += n;
    } else if (f.wire_type == 2) {
      const uint64_t n = read_varint(s, pos);
      if (pos + n > s.size()) throw std::runtime_error("truncated length-delimited field");
      f.bytes = s.substr(pos, n);
      pos += n;
    } else {
      throw std::runtime_error("unexpected wire type " + std::to_string(f.wire_type));
    }
    out.push_back(std::move(f));
  }
  return out;
}

// The fields numbered `number`, in order.
inline std::vector<ProtoField> fields_of(const std::vector<ProtoField>& all, int number) {
  std::vector<ProtoField> out;
  for (const ProtoField& f : all) {
    if (f.number == number) out.push_back(f);
  }
  return out;
}

inline double as_double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

}  // namespace llm::testing
