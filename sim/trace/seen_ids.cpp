#include "sim/trace/seen_ids.h"

#include <functional>
#include <iterator>
#include <limits>
#include <string>

namespace llm {
namespace {

// The id as a decimal integer written the one way to_string writes it, if it is one.
bool canonical_number(std::string_view id, uint64_t* n) {
  if (id.empty() || id.size() > 20 || (id.size() > 1 && id[0] == '0')) return false;
  uint64_t v = 0;
  for (char c : id) {
    if (c < '0' || c > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
    v = v * 10 + digit;
  }
  *n = v;
  return true;
}

}  // namespace

bool SeenIds::insert(std::string_view id) {
  uint64_t n = 0;
  if (canonical_number(id, &n)) return insert_number(n);
  const uint64_t h = std::hash<std::string_view>{}(id);
  return insert_fingerprint(h == 0 ? 1 : h);
}

bool SeenIds::insert_number(uint64_t n) {
  auto next = intervals_.upper_bound(n);  // the first interval starting after n
  auto prev = next == intervals_.begin() ? intervals_.end() : std::prev(next);
  if (prev != intervals_.end() && prev->second >= n) return false;
  const bool joins_prev = prev != intervals_.end() && prev->second + 1 == n;
  const bool joins_next = next != intervals_.end() && n + 1 == next->first;
  if (joins_prev && joins_next) {
    prev->second = next->second;
    intervals_.erase(next);
  } else if (joins_prev) {
    prev->second = n;
  } else if (joins_next) {
    const uint64_t last = next->second;
    intervals_.erase(next);
    intervals_.emplace(n, last);
  } else {
    intervals_.emplace(n, n);
  }
  return true;
}

bool SeenIds::insert_fingerprint(uint64_t h) {
  if ((used_ + 1) * 4 > slots_.size() * 3) grow();
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (slots_[i] == h) return false;
    if (slots_[i] == 0) {
      slots_[i] = h;
      ++used_;
      return true;
    }
  }
}

void SeenIds::grow() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, 0);
  const size_t mask = slots_.size() - 1;
  for (uint64_t h : old) {
    if (h == 0) continue;
    size_t i = h & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = h;
  }
}

}  // namespace llm
