// Helpers for the prefix-cache tests (core/kv_cache_manager_test.cpp, core/kv_events_test.cpp):
// requests with given prompt tokens, runs of consecutive token ids, and admitting a request into a
// KvCacheManager the way the scheduler does.
// Thread-safety: none; single-threaded tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "core/kv_cache_manager.h"
#include "core/request.h"

namespace llm::testing {

inline Request with_tokens(std::vector<int32_t> tokens, uint64_t id) {
  Request r;
  r.id = id;
  r.prompt_tokens = std::move(tokens);
  r.prompt_len = static_cast<int64_t>(r.prompt_tokens.size());
  return r;
}

inline std::vector<int32_t> iota_tokens(int n, int start) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

// Admits a request the way the scheduler does: lookup, then allocate its whole prompt. Returns the
// number of prompt tokens found in the cache.
inline int64_t admit(KvCacheManager& kv, Request& r) {
  std::vector<int32_t> hits;
  const int64_t hit_tokens = kv.find_cached_prefix(r, hits);
  EXPECT_TRUE(kv.allocate_slots(r, r.num_tokens() - hit_tokens, hits));
  r.num_computed_tokens = r.num_tokens();
  return hit_tokens;
}

}  // namespace llm::testing
