#include "server/kv_events/kv_event_encoder.h"

#define MSGPACK_NO_BOOST
#include <cstring>
#include <msgpack.hpp>

namespace llm {
namespace {

using Packer = msgpack::packer<msgpack::sbuffer>;

constexpr char kMediumGpu[] = "GPU";  // vLLM's MEDIUM_GPU

void pack_text(Packer& pk, const std::string& text) {
  pk.pack_str(static_cast<uint32_t>(text.size()));
  pk.pack_str_body(text.data(), static_cast<uint32_t>(text.size()));
}

// msgpack-c packs a double with an integral value as an integer; msgspec (and llm-d's decoder)
// want float64 always, so the timestamp is written by hand: 0xcb and the IEEE-754 bits.
void pack_float64(msgpack::sbuffer& buffer, double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  char bytes[9] = {static_cast<char>(0xcb)};
  for (int i = 8; i >= 1; --i, bits >>= 8) bytes[i] = static_cast<char>(bits & 0xff);
  buffer.write(bytes, sizeof bytes);
}

void pack_hashes(Packer& pk, const std::vector<uint64_t>& hashes) {
  pk.pack_array(static_cast<uint32_t>(hashes.size()));
  for (uint64_t h : hashes) pk.pack_fix_uint64(h);
}

void pack_event(Packer& pk, const KvBlockStored& e) {
  pk.pack_array(8);
  pack_text(pk, "BlockStored");
  pack_hashes(pk, e.block_hashes);
  if (e.parent_block_hash) {
    pk.pack_fix_uint64(*e.parent_block_hash);
  } else {
    pk.pack_nil();
  }
  pk.pack_array(static_cast<uint32_t>(e.token_ids.size()));
  for (int32_t t : e.token_ids) pk.pack_int32(t);
  pk.pack_int32(e.block_size);
  pk.pack_nil();  // lora_id: llmserve serves no LoRA adapters
  pack_text(pk, kMediumGpu);
  pk.pack_nil();  // lora_name
}

void pack_event(Packer& pk, const KvBlockRemoved& e) {
  pk.pack_array(3);
  pack_text(pk, "BlockRemoved");
  pack_hashes(pk, e.block_hashes);
  pack_text(pk, kMediumGpu);
}

void pack_event(Packer& pk, const KvAllBlocksCleared&) {
  pk.pack_array(1);
  pack_text(pk, "AllBlocksCleared");
}

}  // namespace

std::string encode_kv_event_batch(double ts, const std::vector<KvEvent>& events,
                                  int32_t data_parallel_rank) {
  msgpack::sbuffer buffer;
  Packer pk(&buffer);
  pk.pack_array(3);
  pack_float64(buffer, ts);
  pk.pack_array(static_cast<uint32_t>(events.size()));
  for (const KvEvent& e : events) {
    std::visit([&pk](const auto& event) { pack_event(pk, event); }, e);
  }
  pk.pack_int32(data_parallel_rank);
  return std::string(buffer.data(), buffer.size());
}

}  // namespace llm
