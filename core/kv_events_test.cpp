// KV-cache event emission: the stored / removed / cleared events of KvCacheManager and EngineCore,
// in tables for exact semantics and a property test that replays the events against the pool.
#include "core/kv_events.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "core/engine_core.h"
#include "core/kv_cache_manager.h"
#include "core/testing/prefix_cache_requests.h"
#include "core/testing/scheduler_table.h"

namespace llm {
namespace {

using testing::admit;
using testing::iota_tokens;
using testing::with_tokens;

const KvBlockStored& as_stored(const KvEvent& e) { return std::get<KvBlockStored>(e); }

std::vector<uint64_t> hashes(const Request& r, size_t first, size_t end) {
  return {r.block_hashes.begin() + first, r.block_hashes.begin() + end};
}

TEST(KvEvents, NothingIsCollectedUntilEnabled) {
  KvCacheManager kv(8, 4, true);
  Request a = with_tokens(iota_tokens(9, 0), 1);
  admit(kv, a);
  EXPECT_FALSE(kv.kv_events_enabled());
  EXPECT_TRUE(kv.take_kv_events().empty());
}

TEST(KvEvents, AnAdmissionStoresItsFullBlocksInOneEventWithTheirTokens) {
  KvCacheManager kv(8, 4, true);
  kv.enable_kv_events();
  Request a = with_tokens(iota_tokens(14, 100), 1);  // 3 full blocks + 2 tokens
  admit(kv, a);
  const std::vector<KvEvent> events = kv.take_kv_events();
  ASSERT_EQ(events.size(), 1u);
  const KvBlockStored& s = as_stored(events[0]);
  EXPECT_EQ(s.block_hashes, hashes(a, 0, 3));
  EXPECT_FALSE(s.parent_block_hash.has_value());
  EXPECT_EQ(s.token_ids, iota_tokens(12, 100));
  EXPECT_EQ(s.block_size, 4);
  EXPECT_TRUE(kv.take_kv_events().empty()) << "taking empties the queue";
}

TEST(KvEvents, APrefixHitAnnouncesOnlyTheNewBlocksWithTheLastHitAsParent) {
  KvCacheManager kv(16, 4, true);
  kv.enable_kv_events();
  Request a = with_tokens(iota_tokens(9, 0), 1);  // blocks 0, 1 full
  admit(kv, a);
  std::vector<int32_t> longer = iota_tokens(8, 0);
  for (int t : {50, 51, 52, 53, 54}) longer.push_back(t);  // blocks 0, 1 shared, block 2 new
  Request b = with_tokens(longer, 2);
  kv.take_kv_events();
  EXPECT_EQ(admit(kv, b), 8);
  const std::vector<KvEvent> events = kv.take_kv_events();
  ASSERT_EQ(events.size(), 1u);
  const KvBlockStored& s = as_stored(events[0]);
  EXPECT_EQ(s.block_hashes, hashes(b, 2, 3));
  EXPECT_EQ(s.parent_block_hash, a.block_hashes[1]);
  EXPECT_EQ(s.token_ids, (std::vector<int32_t>{50, 51, 52, 53}));
}

TEST(KvEvents, DecodeFillingABlockStoresItWithTheOutputTokens) {
  KvCacheManager kv(8, 4, true);
  kv.enable_kv_events();
  Request a = with_tokens(iota_tokens(6, 0), 1);
  a.keep_output_tokens = true;
  admit(kv, a);  // block 0 stored
  kv.take_kv_events();
  for (int32_t token : {40, 41}) {  // tokens 6 and 7 fill block 1
    a.append_output_token(token);
    ASSERT_TRUE(kv.allocate_slots(a, 1));
    a.num_computed_tokens = a.num_tokens();
  }
  const std::vector<KvEvent> events = kv.take_kv_events();
  ASSERT_EQ(events.size(), 1u);
  const KvBlockStored& s = as_stored(events[0]);
  EXPECT_EQ(s.block_hashes, hashes(a, 1, 2));
  EXPECT_EQ(s.parent_block_hash, a.block_hashes[0]);
  EXPECT_EQ(s.token_ids, (std::vector<int32_t>{4, 5, 40, 41}));
}

TEST(KvEvents, ReusingACachedBlockRemovesItsHash) {
  KvCacheManager kv(4, 4, true);  // 3 usable blocks
  kv.enable_kv_events();
  Request a = with_tokens(iota_tokens(9, 0), 1);  // 2 full + 1 partial
  admit(kv, a);
  kv.release(a);  // partial block to the head; full blocks (tail first) to the tail
  kv.take_kv_events();
  Request b = with_tokens(iota_tokens(9, 500), 2);  // 3 blocks: a's partial, then its tail block 1
  admit(kv, b);
  const std::vector<KvEvent> events = kv.take_kv_events();
  ASSERT_EQ(events.size(), 3u);
  // Allocation evicts before the new blocks are hashed: removals come first.
  EXPECT_EQ(std::get<KvBlockRemoved>(events[0]).block_hashes,
            (std::vector<uint64_t>{a.block_hashes[1]}));
  EXPECT_EQ(std::get<KvBlockRemoved>(events[1]).block_hashes,
            (std::vector<uint64_t>{a.block_hashes[0]}));
  EXPECT_EQ(as_stored(events[2]).block_hashes, hashes(b, 0, 2));
}

TEST(KvEvents, ResetClearsAllOnlyWhenNoBlockIsHeld) {
  KvCacheManager kv(8, 4, true);
  kv.enable_kv_events();
  Request a = with_tokens(iota_tokens(9, 0), 1);
  admit(kv, a);
  kv.take_kv_events();
  EXPECT_FALSE(kv.reset_prefix_cache());
  EXPECT_TRUE(kv.take_kv_events().empty());
  kv.release(a);
  EXPECT_TRUE(kv.reset_prefix_cache());
  const std::vector<KvEvent> events = kv.take_kv_events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<KvAllBlocksCleared>(events[0]));
  EXPECT_EQ(kv.pool().num_cached_hashes(), 0u);
  Request again = with_tokens(iota_tokens(9, 0), 2);
  EXPECT_EQ(admit(kv, again), 0) << "nothing is cached after the reset";
}

TEST(KvEvents, RequestsWithoutTokenIdsAnnounceSynthesizedIdsSharedByEqualPrefixes) {
  KvCacheManager kv(16, 4, true);
  kv.enable_kv_events();
  const auto traced = [](uint64_t id, std::vector<uint64_t> hash_ids) {
    Request r;
    r.id = id;
    r.prompt_len = 9;
    r.hash_block_size = 4;
    r.prefix_hash_ids = std::move(hash_ids);
    return r;
  };
  Request a = traced(1, {11, 12, 13});
  admit(kv, a);
  Request b = traced(2, {21, 22, 23});
  admit(kv, b);
  const std::vector<KvEvent> events = kv.take_kv_events();
  ASSERT_EQ(events.size(), 2u);
  const KvBlockStored& sa = as_stored(events[0]);
  ASSERT_EQ(sa.token_ids.size(), 8u);
  for (int32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(sa.token_ids[i], synthesized_token_id(a.block_hashes[i / 4], i % 4)) << i;
    EXPECT_GE(sa.token_ids[i], 0);
  }
  EXPECT_NE(sa.token_ids, as_stored(events[1]).token_ids) << "different prefixes, different ids";
  kv.release(a);
  Request a2 = traced(3, {11, 12, 99});  // hash ids 11, 12: blocks 0 and 1 still hit
  EXPECT_EQ(admit(kv, a2), 8);
}

// ---- Replaying the events against the engine's own pool ----

// What a router learns from the events: a multiset of announced hashes, with each stored block's
// parent and tokens. Records the first broken rule.
struct EventReplay {
  std::map<uint64_t, int> live;  // hash -> copies announced and not removed
  std::map<uint64_t, std::vector<int32_t>> tokens_of;
  std::map<uint64_t, std::optional<uint64_t>> parent_of;
  std::string error;

  void apply(const std::vector<KvEvent>& events, int32_t block_size) {
    for (const KvEvent& e : events) {
      if (const auto* s = std::get_if<KvBlockStored>(&e)) store(*s, block_size);
      if (const auto* r = std::get_if<KvBlockRemoved>(&e)) remove(*r);
      if (std::holds_alternative<KvAllBlocksCleared>(e)) live.clear();
    }
  }
  void store(const KvBlockStored& s, int32_t block_size) {
    if (s.block_hashes.empty()) fail("a stored event without hashes");
    if (s.block_size != block_size) fail("block_size differs from the engine's");
    if (s.token_ids.size() != s.block_hashes.size() * static_cast<size_t>(block_size)) {
      fail("token count is not block_size x hashes");
    }
    std::optional<uint64_t> parent = s.parent_block_hash;
    if (parent && live[*parent] <= 0) fail("parent not announced or already removed");
    for (size_t i = 0; i < s.block_hashes.size(); ++i) {
      const uint64_t h = s.block_hashes[i];
      std::vector<int32_t> tokens(s.token_ids.begin() + i * block_size,
                                  s.token_ids.begin() + (i + 1) * block_size);
      auto [it, fresh] = tokens_of.emplace(h, tokens);
      if (!fresh && it->second != tokens) fail("one hash announced with two token contents");
      auto [pit, pfresh] = parent_of.emplace(h, parent);
      if (!pfresh && pit->second != parent) fail("one hash announced with two parents");
      ++live[h];
      parent = h;
    }
  }
  void remove(const KvBlockRemoved& r) {
    for (uint64_t h : r.block_hashes) {
      if (--live[h] < 0) fail("removed more copies than were stored");
    }
  }
  // The tokens from the root to block h, along the announced parents.
  std::vector<int32_t> sequence(uint64_t h) const {
    std::vector<uint64_t> chain;
    for (std::optional<uint64_t> at = h; at; at = parent_of.at(*at)) chain.push_back(*at);
    std::vector<int32_t> seq;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      const auto& t = tokens_of.at(*it);
      seq.insert(seq.end(), t.begin(), t.end());
    }
    return seq;
  }
  void fail(const std::string& what) {
    if (error.empty()) error = what;
  }
};

// The replayed multiset agrees with the pool: a hash is live exactly when the pool finds it.
std::string compare_with_pool(const EventReplay& replay, const BlockPool& pool) {
  size_t live = 0;
  for (const auto& [hash, copies] : replay.live) {
    if (copies <= 0) {
      if (pool.lookup(hash) != BlockPool::kNone) return "a removed hash is still cached";
      continue;
    }
    ++live;
    if (pool.lookup(hash) == BlockPool::kNone) return "an announced hash is not cached";
  }
  if (live != pool.num_cached_hashes()) return "the pool caches hashes never announced";
  return "";
}

// Prompts built from a few shared prefixes and suffixes; outputs are 7s then EOS 0
// (ScriptedBackend), kept so that their blocks are hashed and announced with real ids.
RC_GTEST_PROP(KvEventsProperty, EventsReplayToThePoolsPrefixCache, ()) {
  testing::TableEngine t([] {
    SchedulerConfig c = testing::table_config(*rc::gen::inRange(6, 20), 32, 64);
    c.enable_prefix_caching = true;
    return c;
  }());
  t.engine.enable_kv_events();
  const int num_requests = *rc::gen::inRange(1, 12);
  std::vector<std::vector<int32_t>> prompts;
  for (int i = 0; i < num_requests; ++i) {
    const int prefix = *rc::gen::inRange(0, 3);
    std::vector<int32_t> p = iota_tokens(*rc::gen::inRange(0, 13), 100 * (prefix + 1));
    const std::vector<int32_t> suffix = iota_tokens(*rc::gen::inRange(1, 9), 1000 + 10 * i);
    p.insert(p.end(), suffix.begin(), suffix.end());
    prompts.push_back(p);
    auto r = std::make_unique<Request>();
    r->external_id = std::to_string(i);
    r->prompt_tokens = p;
    r->prompt_len = static_cast<int64_t>(p.size());
    r->scripted_output_len = *rc::gen::inRange(1, 10);
    r->keep_output_tokens = true;
    t.engine.add_request(std::move(r));
  }
  EventReplay replay;
  for (int step = 0; step < 500 && t.engine.step(); ++step) {
    replay.apply(t.engine.take_kv_events(), 4);
    RC_ASSERT(replay.error == "");
    RC_ASSERT(compare_with_pool(replay, t.engine.scheduler().kv().pool()) == "");
  }
  // Every announced block's tokens, along its parents, begin one of the submitted sequences.
  for (const auto& [hash, tokens] : replay.tokens_of) {
    const std::vector<int32_t> seq = replay.sequence(hash);
    bool found = false;
    for (const auto& p : prompts) {
      if (seq.size() < p.size() ? std::equal(seq.begin(), seq.end(), p.begin())
                                : std::equal(p.begin(), p.end(), seq.begin()) &&
                                      std::all_of(seq.begin() + p.size(), seq.end(),
                                                  [](int32_t x) { return x == 7 || x == 0; })) {
        found = true;
      }
    }
    RC_ASSERT(found);
  }
  RC_ASSERT(t.engine.reset_prefix_cache());
  replay.apply(t.engine.take_kv_events(), 4);
  RC_ASSERT(compare_with_pool(replay, t.engine.scheduler().kv().pool()) == "");
  RC_ASSERT(t.engine.scheduler().kv().pool().num_cached_hashes() == 0u);
}

}  // namespace
}  // namespace llm
