#include "core/kv_events.h"

#include "core/rng.h"

namespace llm {

int32_t synthesized_token_id(uint64_t block_hash, int32_t position_in_block) {
  const uint64_t h = hash_combine(block_hash, static_cast<uint64_t>(position_in_block));
  return static_cast<int32_t>(h & 0x7fffffffULL);
}

}  // namespace llm
