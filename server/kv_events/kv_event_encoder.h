// The msgpack payload of one published batch, as vLLM's msgspec encodes a KVEventBatch. The batch
// is always positional, [ts, [event...], data_parallel_rank]; each event is, by KvEventFormat:
// - kMap (vLLM since PR #42892, the default): a map tagged "type", fields in vLLM's declaration
//   order, defaults left out as msgspec's omit_defaults does:
//     {"type": "BlockStored", "block_hashes": [hash...], "parent_block_hash": hash|nil,
//      "token_ids": [id...], "block_size": n, "lora_id": nil, "medium": "GPU", "lora_name": nil,
//      "extra_keys": [nil per block], "group_idx": 0, "kv_cache_spec_kind": "full_attention"}
//     {"type": "BlockRemoved", "block_hashes": [hash...], "medium": "GPU", "group_idx": 0}
//     {"type": "AllBlocksCleared"}
// - kArray (vLLM before #42892: array_like=True, tag=True): an array whose first element is the
//   class name:
//     ["BlockStored", [hash...], parent_hash|nil, [token_id...], block_size, lora_id=nil,
//      medium="GPU", lora_name=nil]
//     ["BlockRemoved", [hash...], medium="GPU"]
//     ["AllBlocksCleared"]
// Hashes are always packed as fixed-width uint64 (0xcf and 8 big-endian bytes), whatever their
// value; other integers take msgpack's shortest form, as msgspec writes them.
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/kv_events.h"

namespace llm {

enum class KvEventFormat { kMap, kArray };

// `ts` is seconds since the Unix epoch (vLLM: time.time() when the step's events were taken).
std::string encode_kv_event_batch(double ts, const std::vector<KvEvent>& events,
                                  int32_t data_parallel_rank,
                                  KvEventFormat format = KvEventFormat::kMap);

}  // namespace llm
