// The msgpack payload of one published batch, as vLLM's msgspec encodes a KVEventBatch
// (array_like=True, tag=True: each struct is an array whose first element is its class name, and
// trailing fields at their default are left out) and as llm-d's subscriber decodes it:
//   [ts, [event...], data_parallel_rank]
//   ["BlockStored", [hash...], parent_hash|nil, [token_id...], block_size, lora_id=nil,
//    medium="GPU", lora_name=nil]
//   ["BlockRemoved", [hash...], medium="GPU"]
//   ["AllBlocksCleared"]
// Hashes are always packed as fixed-width uint64 (0xcf and 8 big-endian bytes), whatever their
// value; other integers take msgpack's shortest form, as msgspec writes them.
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/kv_events.h"

namespace llm {

// `ts` is seconds since the Unix epoch (vLLM: time.time() when the step's events were taken).
std::string encode_kv_event_batch(double ts, const std::vector<KvEvent>& events,
                                  int32_t data_parallel_rank);

}  // namespace llm
