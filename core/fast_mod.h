// FastMod: x % d for a divisor fixed at run time, without a division: Lemire, Kaser and Kurz,
// "Faster Remainder by Direct Computation" (2019): with M = ceil(2^128 / d), x % d is the high
// 64 bits of (M * x mod 2^128) * d, exact for every 64-bit x and d (2N fraction bits for N-bit
// operands). SimBackend draws one token id per sampled token this way.
// Thread-safety: immutable after construction; const calls are safe from any thread.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace llm {

class FastMod {
 public:
  // REQUIRES: d > 0 (throws std::invalid_argument otherwise).
  explicit FastMod(uint64_t d) : d_(d), m_(~static_cast<unsigned __int128>(0) / check(d) + 1) {}

  uint64_t divisor() const { return d_; }

  uint64_t operator()(uint64_t x) const {
    const unsigned __int128 low = m_ * x;  // the fraction x / d, mod 1, in 128 bits
    const auto lo = static_cast<uint64_t>(low);
    const auto hi = static_cast<uint64_t>(low >> 64);
    const unsigned __int128 bottom = (static_cast<unsigned __int128>(lo) * d_) >> 64;
    const unsigned __int128 top = static_cast<unsigned __int128>(hi) * d_;
    return static_cast<uint64_t>((top + bottom) >> 64);
  }

 private:
  static uint64_t check(uint64_t d) {
    if (d == 0) throw std::invalid_argument("FastMod: divisor 0");
    return d;
  }

  uint64_t d_;
  unsigned __int128 m_;  // ceil(2^128 / d); 0 for d == 1 (2^128 wraps), which gives 0: right
};

}  // namespace llm
