#include "core/block_hash_map.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>

namespace llm {
namespace {

// Against std::map as a model, with keys that collide in the low bits to stress probing.
RC_GTEST_PROP(BlockHashMap, BehavesLikeAMap, ()) {
  BlockHashMap table(64);
  std::map<uint64_t, int32_t> model;
  const int ops = *rc::gen::inRange(1, 400);
  for (int op = 0; op < ops; ++op) {
    const uint64_t key =
        (*rc::gen::inRange<uint64_t>(0, 40)) * 64 + *rc::gen::inRange<uint64_t>(0, 3);
    const int32_t value = *rc::gen::inRange(0, 1000);
    switch (*rc::gen::inRange(0, 3)) {
      case 0:
        if (model.size() < 64)
          RC_ASSERT(table.insert(key, value) == model.emplace(key, value).second);
        break;
      case 1: {
        auto it = model.find(key);
        const int32_t v = it != model.end() && *rc::gen::arbitrary<bool>() ? it->second : value;
        const bool erased = it != model.end() && it->second == v;
        RC_ASSERT(table.erase(key, v) == erased);
        if (erased) model.erase(it);
        break;
      }
      default:
        break;
    }
    RC_ASSERT(table.size() == model.size());
    for (const auto& [k, v] : model) RC_ASSERT(table.find(k) == v);
    RC_ASSERT(table.find(key) == (model.count(key) ? model.at(key) : BlockHashMap::kAbsent));
  }
}

}  // namespace
}  // namespace llm
