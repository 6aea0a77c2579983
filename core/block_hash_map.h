// The prefix cache's index from a full block's chained hash to every block holding it. As in
// vLLM, several blocks may hold one hash (requests that computed the same block at the same time
// each keep their own copy, since block tables only grow); find() gives the oldest copy still
// held, so a lookup still hits after one copy is evicted.
//
// Representation: an open-addressing table (linear probing, backward-shift deletion) from a hash
// to the oldest block holding it, and per block a circular list of the other blocks holding the
// same hash, in insertion order. Both are sized once for the pool (values are block ids below
// max_values), so find, insert and erase allocate nothing and take O(1) steps (the table touches
// one or two cache lines). A table slot is 8 bytes, the hash's low 32 bits (which hold its home
// slot) and the oldest holder; the whole hash is in that holder's record, so a slot whose low
// bits match is confirmed there.
// Thread-safety: none; owned by a BlockPool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/prefetch.h"

namespace llm {

class BlockHashMap {
 public:
  static constexpr int32_t kAbsent = -1;

  // Values (block ids) must lie in [0, max_values); the table holds at most max_values hashes.
  explicit BlockHashMap(size_t max_values) : holders_(max_values) {
    size_t capacity = 16;
    while (capacity < 2 * max_values) capacity *= 2;
    if (capacity > (size_t{1} << 32)) throw std::invalid_argument("BlockHashMap: too many values");
    slots_.resize(capacity);
    mask_ = capacity - 1;
  }

  size_t size() const { return size_; }  // distinct hashes

  // The oldest value holding the key, or kAbsent.
  int32_t find(uint64_t key) const {
    const size_t i = find_slot(key);
    return i == kNoSlot ? kAbsent : slots_[i].value;
  }

  // Asks the CPU to bring in the lines that insert(key, value), erase(key, value) or find(key)
  // will read (the table is megabytes, so each is otherwise a cache miss). Changes nothing.
  void prefetch(uint64_t key, int32_t value = kAbsent) const {
    prefetch_line(&slots_[home(key)]);
    if (value >= 0 && static_cast<size_t>(value) < holders_.size()) {
      prefetch_line(&holders_[static_cast<size_t>(value)]);
    }
  }

  // Adds `value` as the newest holder of `key`. A value holds at most one key at a time.
  void insert(uint64_t key, int32_t value);

  // Removes `value` from the holders of `key`; returns false (changing nothing) when it is not one.
  bool erase(uint64_t key, int32_t value);

 private:
  static constexpr size_t kNoSlot = SIZE_MAX;

  struct Slot {
    uint32_t low = 0;         // the key's low 32 bits (home(key) is among them)
    int32_t value = kAbsent;  // the oldest holder; its Holder has the whole key
  };
  // One per value: the hash it holds and its neighbours among that hash's holders.
  struct Holder {
    uint64_t key = 0;
    int32_t next = kAbsent;  // the next newer holder (the newest's next is the oldest)
    int32_t prev = kAbsent;  // the next older holder (the oldest's prev is the newest)
    bool held = false;
  };

  size_t home(uint64_t key) const { return static_cast<size_t>(key) & mask_; }
  bool holds(const Slot& s, uint64_t key) const {
    return s.low == static_cast<uint32_t>(key) && holders_[static_cast<size_t>(s.value)].key == key;
  }

  Holder& holder(int32_t value);  // throws std::logic_error when out of range

  size_t find_slot(uint64_t key) const {
    for (size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (s.value == kAbsent) return kNoSlot;
      if (holds(s, key)) return i;
    }
  }

  // Backward-shift deletion: later entries of the probe run move into the hole when that keeps
  // them reachable from their home slot.
  void erase_slot(size_t i);

  std::vector<Slot> slots_;
  std::vector<Holder> holders_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace llm
