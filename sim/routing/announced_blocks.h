// What llm-d's endpoint picker knows of one engine's prefix cache: an index of the block hashes
// the engine announced in its KV-cache events (core/kv_events.h) and has not removed since, as
// the EPP's precise prefix-cache scorer keeps it. A hash stored k times (k copies of a block)
// stays until k removals; AllBlocksCleared empties the index. The score it gives a request is the
// number of leading full blocks of its prompt found in the index; the request's hashes are the
// engine's own chained block hashes (the EPP is configured with the engine's block size and hash
// seed, so it computes the same ones). Evictions the engine announced drop blocks at once.
// Thread-safety: none; simulator thread.
#pragma once

#include <cstdint>
#include <unordered_map>

#include "core/kv_cache_manager.h"
#include "core/kv_events.h"
#include "sim/routing/router.h"

namespace llm {

class AnnouncedBlocks : public AnnouncedPrefixes {
 public:
  // `kv` is the engine's cache manager, for its block size and hash function only.
  explicit AnnouncedBlocks(const KvCacheManager& kv) : kv_(kv) {}

  void apply(const KvEvent& event);
  bool holds(uint64_t hash) const { return copies_.count(hash) > 0; }
  size_t num_hashes() const { return copies_.size(); }

  int32_t block_size() const override { return kv_.block_size(); }
  int64_t matched_blocks(Request& request) const override;

 private:
  const KvCacheManager& kv_;
  std::unordered_map<uint64_t, int64_t> copies_;  // announced hash -> copies not yet removed
};

}  // namespace llm
