// The prefix cache's index from a full block's chained hash to the block holding it: an
// open-addressing table with linear probing and backward-shift deletion, sized once for the pool
// (it never holds more entries than there are blocks), so lookups, inserts and erases allocate
// nothing and touch one or two cache lines.
// Thread-safety: none; owned by a BlockPool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace llm {

class BlockHashMap {
 public:
  static constexpr int32_t kAbsent = -1;

  explicit BlockHashMap(size_t max_entries) {
    size_t capacity = 16;
    while (capacity < 2 * max_entries) capacity *= 2;
    slots_.resize(capacity);
    mask_ = capacity - 1;
  }

  size_t size() const { return size_; }

  int32_t find(uint64_t key) const {
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kAbsent) return kAbsent;
      if (s.key == key) return s.value;
    }
  }

  // Inserts unless the key is present; returns false when it was.
  bool insert(uint64_t key, int32_t value) {
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.value == kAbsent) {
        s = {key, value};
        ++size_;
        return true;
      }
      if (s.key == key) return false;
    }
  }

  // Erases the key if it maps to `value`; returns whether it did.
  bool erase(uint64_t key, int32_t value) {
    size_t i = home(key);
    for (;; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kAbsent) return false;
      if (s.key == key) break;
    }
    if (slots_[i].value != value) return false;
    // Backward-shift: move later entries of the probe run into the hole when that keeps them
    // reachable from their home slot.
    size_t hole = i;
    for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      Slot& s = slots_[j];
      if (s.value == kAbsent) break;
      const size_t h = home(s.key);
      const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
      if (movable) {
        slots_[hole] = s;
        hole = j;
      }
    }
    slots_[hole].value = kAbsent;
    --size_;
    return true;
  }

 private:
  struct Slot {
    uint64_t key = 0;
    int32_t value = kAbsent;
  };
  size_t home(uint64_t key) const { return static_cast<size_t>(key) & mask_; }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace llm
