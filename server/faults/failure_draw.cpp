#include "server/faults/failure_draw.h"

namespace llm {
namespace {

// SplitMix64's finalizer (Steele, Lea and Flood, "Fast splittable pseudorandom number
// generators", 2014): a bijective mix of a 64-bit counter.
uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::optional<FailureType> draw_failure(uint64_t seed, uint64_t n, double rate,
                                        const std::vector<FailureType>& types) {
  if (rate <= 0) return std::nullopt;
  const uint64_t bits = splitmix64(splitmix64(seed) ^ n);
  const double u = static_cast<double>(bits >> 11) * 0x1.0p-53;  // uniform in [0, 1)
  if (u >= rate) return std::nullopt;
  const std::vector<FailureType>& from = types.empty() ? all_failure_types() : types;
  return from[splitmix64(bits) % from.size()];
}

}  // namespace llm
