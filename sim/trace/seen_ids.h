// The request ids a streaming trace reader has seen, to refuse a repeated one without holding
// the ids: an id that is a decimal integer (no sign, no leading zero, below 2^64) joins a set of
// intervals (ids that count up, as the JSON format's default index ids and written synthetic
// traces do, take a few bytes in all); any other id leaves a 64-bit fingerprint in an
// open-addressing table (8 bytes per slot, at most 3/4 full: 11 to 21 bytes per id).
// insert() answers "maybe seen" for a fingerprint shared by two different ids (odds about
// n^2 / 2^65), so a caller that must be exact looks the id up again in the trace.
// Thread-safety: one instance per thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

namespace llm {

class SeenIds {
 public:
  // Records `id`; false when it (or, for a non-integer id, its fingerprint) was recorded before.
  bool insert(std::string_view id);
  // Interval count and table slots, for tests and the memory bound.
  size_t intervals() const { return intervals_.size(); }
  size_t slots() const { return slots_.size(); }

 private:
  bool insert_number(uint64_t n);
  bool insert_fingerprint(uint64_t h);
  void grow();

  std::map<uint64_t, uint64_t> intervals_;  // first -> last (inclusive), disjoint, not adjacent
  std::vector<uint64_t> slots_;             // 0: empty
  size_t used_ = 0;
};

}  // namespace llm
