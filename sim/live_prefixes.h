// An engine's prefix cache as the router's announced blocks (AnnouncedPrefixes), read from the
// engine's own lookup: what KV-cache events would have told the EPP by now if they arrived at
// once, evictions included. The prefix-cache scorer's view of each engine in llmsim.
// Thread-safety: none; simulator thread.
#pragma once

#include <vector>

#include "core/kv_cache_manager.h"
#include "sim/router.h"

namespace llm {

class LivePrefixes : public AnnouncedPrefixes {
 public:
  explicit LivePrefixes(const KvCacheManager& kv) : kv_(kv) {}
  int32_t block_size() const override { return kv_.block_size(); }
  int64_t matched_blocks(Request& request) const override;

 private:
  const KvCacheManager& kv_;
  mutable std::vector<int32_t> hits_;  // scratch of the lookup
};

}  // namespace llm
