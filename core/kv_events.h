// KV-cache events: what an engine announces about its prefix cache so that a router (llm-d's
// endpoint picker, llmsim's simulated prefix scorer) can track which blocks it holds. The shape
// follows vLLM's BlockStored / BlockRemoved / AllBlocksCleared (vllm/distributed/kv_events.py);
// docs/kv-events.md gives the wire format server/kv_events/ sends them in.
//
// Semantics, as the engine emits them (KvCacheManager, BlockPool):
// - KvBlockStored: full blocks that just entered the prefix cache, consecutive in one request's
//   block table. parent_block_hash is the hash of the block before the first of them, absent for a
//   request's first block; it was announced before and not removed since (the request holds it).
//   token_ids holds block_size x block_hashes.size() ids.
// - KvBlockRemoved: a block's hash left the cache (its block was reused). As in vLLM, each copy of
//   a block (two requests that computed the same block at once) is stored and removed on its own,
//   so a hash stays cached until as many removals as stores were announced.
// - KvAllBlocksCleared: the prefix cache was reset; every announced hash is gone.
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

namespace llm {

struct KvBlockStored {
  std::vector<uint64_t> block_hashes;
  std::optional<uint64_t> parent_block_hash;
  std::vector<int32_t> token_ids;
  int32_t block_size = 0;
};

struct KvBlockRemoved {
  std::vector<uint64_t> block_hashes;
};

struct KvAllBlocksCleared {};

using KvEvent = std::variant<KvBlockStored, KvBlockRemoved, KvAllBlocksCleared>;

// The id announced for a token whose real id the engine does not have (a simulated request from a
// trace carries only a length and prefix hash ids): a deterministic stand-in derived from the
// block's chained hash and the token's position in the block, in [0, 2^31). Blocks with the same
// hash (the same prefix) get the same ids.
int32_t synthesized_token_id(uint64_t block_hash, int32_t position_in_block);

}  // namespace llm
