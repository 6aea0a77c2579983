// Deterministic pseudo-random numbers with a fixed algorithm (SplitMix64), so results are the same
// with every standard library and platform. Never use std:: distributions in core/, sim/ or
// backends/sim: their output differs between implementations.
// Thread-safety: an Rng object is not thread-safe; the free functions are pure.
#pragma once

#include <cmath>
#include <cstdint>

namespace llm {

// One SplitMix64 mixing round: a good 64-bit hash of x.
constexpr uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Combines two 64-bit values into one hash (order matters).
constexpr uint64_t hash_combine(uint64_t a, uint64_t b) { return mix64(a ^ mix64(b)); }

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t next_u64() {
    state_ += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 53 bits of precision.
  double uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n > 0 (multiply-shift; bias below 2^-32 for n < 2^32).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next_u64()) * n) >> 64);
  }

  // Exponential with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }

  // Standard normal (Box-Muller, one value per call, deterministic).
  double normal() {
    double u1 = uniform();
    double u2 = uniform();
    if (u1 < 1e-300) u1 = 1e-300;
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  uint64_t state_;
};

}  // namespace llm
