// The picker's index of announced blocks (sim/routing/announced_blocks.h): stored, removed and
// cleared events in a table, and as a property that, fed an engine's own events, it matches exactly
// the prefix that engine's cache would hit.
#include "sim/routing/announced_blocks.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <memory>
#include <numeric>
#include <vector>

namespace llm {
namespace {

Request with_tokens(std::vector<int32_t> tokens, uint64_t id) {
  Request r;
  r.id = id;
  r.prompt_tokens = std::move(tokens);
  r.prompt_len = static_cast<int64_t>(r.prompt_tokens.size());
  return r;
}

std::vector<int32_t> iota_tokens(int n, int start) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), start);
  return v;
}

TEST(AnnouncedBlocks, StoredRemovedAndClearedEvents) {
  const KvCacheManager kv(64, 4, true);
  Request q = with_tokens(iota_tokens(14, 0), 1);  // 3 full blocks
  const uint64_t h0 = kv.block_hash(q, 0), h1 = kv.block_hash(q, 1), h2 = kv.block_hash(q, 2);
  struct Row {
    const char* what;
    std::vector<KvEvent> events;
    int64_t matched;
  };
  const std::vector<Row> rows = {
      {"nothing announced", {}, 0},
      {"the first two blocks", {KvBlockStored{{h0, h1}, std::nullopt, {}, 4}}, 2},
      {"all three, in two events",
       {KvBlockStored{{h0, h1}, std::nullopt, {}, 4}, KvBlockStored{{h2}, h1, {}, 4}},
       3},
      {"a later block without the first does not count", {KvBlockStored{{h1, h2}, h0, {}, 4}}, 0},
      {"the middle block removed",
       {KvBlockStored{{h0, h1, h2}, std::nullopt, {}, 4}, KvBlockRemoved{{h1}}},
       1},
      {"two copies, one removed",
       {KvBlockStored{{h0}, std::nullopt, {}, 4}, KvBlockStored{{h0}, std::nullopt, {}, 4},
        KvBlockRemoved{{h0}}},
       1},
      {"a removal never announced changes nothing",
       {KvBlockRemoved{{h0}}, KvBlockStored{{h0}, std::nullopt, {}, 4}},
       1},
      {"cleared", {KvBlockStored{{h0, h1, h2}, std::nullopt, {}, 4}, KvAllBlocksCleared{}}, 0},
      {"stored again after a clear",
       {KvBlockStored{{h0}, std::nullopt, {}, 4}, KvAllBlocksCleared{},
        KvBlockStored{{h0, h1}, std::nullopt, {}, 4}},
       2},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.what);
    AnnouncedBlocks index(kv);
    for (const KvEvent& e : row.events) index.apply(e);
    Request fresh = with_tokens(iota_tokens(14, 0), 2);
    EXPECT_EQ(index.matched_blocks(fresh), row.matched);
  }
}

// Requests of random shared prefixes admitted and released on a small cache (so blocks are
// evicted): after each operation, the index fed the engine's events matches as many blocks of a
// random prompt as the engine's own lookup finds cached.
RC_GTEST_PROP(AnnouncedBlocks, MatchesWhatTheEngineWouldHit, ()) {
  KvCacheManager kv(24, 4, true);
  kv.enable_kv_events();
  AnnouncedBlocks index(kv);
  std::vector<std::unique_ptr<Request>> live;
  // Prompts are a shared prefix (one of 3) then a tail of one of 4 stems: blocks repeat often.
  auto prompt = [](int prefix, int stem, int length) {
    std::vector<int32_t> t;
    for (int i = 0; i < length; ++i) t.push_back(i < 8 ? prefix * 100 + i : stem * 1000 + i);
    return t;
  };
  const int ops = *rc::gen::inRange(1, 40);
  uint64_t id = 0;
  for (int op = 0; op < ops; ++op) {
    const bool admit = live.empty() || *rc::gen::inRange(0, 3) > 0;
    if (admit) {
      auto r = std::make_unique<Request>(with_tokens(
          prompt(*rc::gen::inRange(0, 3), *rc::gen::inRange(0, 4), *rc::gen::inRange(1, 20)),
          ++id));
      std::vector<int32_t> hits;
      const int64_t hit = kv.find_cached_prefix(*r, hits);
      if (kv.allocate_slots(*r, r->num_tokens() - hit, hits)) {
        r->num_computed_tokens = r->num_tokens();
        live.push_back(std::move(r));
      }
    } else {
      const size_t k = *rc::gen::inRange<size_t>(0, live.size());
      kv.release(*live[k]);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    }
    for (const KvEvent& e : kv.take_kv_events()) index.apply(e);
    // A query whose length is no multiple of the block size: both count floor(n / 4) blocks.
    int length = *rc::gen::inRange(1, 24);
    if (length % 4 == 0) ++length;
    Request q = with_tokens(prompt(*rc::gen::inRange(0, 3), *rc::gen::inRange(0, 4), length), 0);
    std::vector<int32_t> hits;
    RC_ASSERT(index.matched_blocks(q) == kv.peek_cached_prefix(q, hits) / 4);
  }
}

}  // namespace
}  // namespace llm
