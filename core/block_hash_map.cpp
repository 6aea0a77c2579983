#include "core/block_hash_map.h"

#include <stdexcept>

namespace llm {

BlockHashMap::Holder& BlockHashMap::holder(int32_t value) {
  if (value < 0 || static_cast<size_t>(value) >= holders_.size()) {
    throw std::logic_error("BlockHashMap: value out of range");
  }
  return holders_[static_cast<size_t>(value)];
}

void BlockHashMap::insert(uint64_t key, int32_t value) {
  Holder& h = holder(value);
  if (h.held) throw std::logic_error("BlockHashMap: the value already holds a hash");
  h = {key, value, value, true};
  for (size_t i = home(key);; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.value == kAbsent) {
      s = {static_cast<uint32_t>(key), value};
      ++size_;
      return;
    }
    if (holds(s, key)) {  // joins the circle between the newest and the oldest
      const int32_t oldest = s.value;
      const int32_t newest = holders_[oldest].prev;
      h.next = oldest;
      h.prev = newest;
      holders_[newest].next = value;
      holders_[oldest].prev = value;
      return;
    }
  }
}

bool BlockHashMap::erase(uint64_t key, int32_t value) {
  Holder& h = holder(value);
  if (!h.held || h.key != key) return false;
  h.held = false;
  const size_t i = find_slot(key);
  if (h.next == value) {  // the only holder: the hash leaves the table
    erase_slot(i);
    return true;
  }
  holders_[h.prev].next = h.next;
  holders_[h.next].prev = h.prev;
  if (slots_[i].value == value) slots_[i].value = h.next;  // the next oldest takes over
  return true;
}

void BlockHashMap::erase_slot(size_t i) {
  size_t hole = i;
  for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
    Slot& s = slots_[j];
    if (s.value == kAbsent) break;
    const size_t h = home(s.low);
    const bool movable = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j);
    if (movable) {
      slots_[hole] = s;
      hole = j;
    }
  }
  slots_[hole].value = kAbsent;
  --size_;
}

}  // namespace llm
