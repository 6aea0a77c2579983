#include "server/kv_events/kv_event_encoder.h"

#define MSGPACK_NO_BOOST
#include <cstring>
#include <msgpack.hpp>
#include <optional>

namespace llm {
namespace {

using Packer = msgpack::packer<msgpack::sbuffer>;

constexpr char kMediumGpu[] = "GPU";                 // vLLM's MEDIUM_GPU
constexpr char kFullAttention[] = "full_attention";  // vLLM's KVCacheSpecKind.FULL_ATTENTION

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

void pack_token_ids(Packer& pk, const std::vector<int32_t>& token_ids) {
  pk.pack_array(static_cast<uint32_t>(token_ids.size()));
  for (int32_t t : token_ids) pk.pack_int32(t);
}

void pack_parent(Packer& pk, const std::optional<uint64_t>& parent) {
  if (parent) {
    pk.pack_fix_uint64(*parent);
  } else {
    pk.pack_nil();
  }
}

// --- kArray: vLLM's array_like=True layout (before PR #42892) ---

void pack_event(Packer& pk, const KvBlockStored& e) {
  pk.pack_array(8);
  pack_text(pk, "BlockStored");
  pack_hashes(pk, e.block_hashes);
  pack_parent(pk, e.parent_block_hash);
  pack_token_ids(pk, e.token_ids);
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

// --- kMap: vLLM's tagged maps (PR #42892). Fields in vLLM's declaration order; group_idx is 0
// (llmserve has one KV cache group, full attention); the optional fields vLLM leaves at their
// default None (kv_cache_spec_sliding_window) are left out, as msgspec's omit_defaults does. ---

void pack_map_event(Packer& pk, const KvBlockStored& e) {
  pk.pack_map(11);
  pack_text(pk, "type");
  pack_text(pk, "BlockStored");
  pack_text(pk, "block_hashes");
  pack_hashes(pk, e.block_hashes);
  pack_text(pk, "parent_block_hash");
  pack_parent(pk, e.parent_block_hash);
  pack_text(pk, "token_ids");
  pack_token_ids(pk, e.token_ids);
  pack_text(pk, "block_size");
  pk.pack_int32(e.block_size);
  pack_text(pk, "lora_id");
  pk.pack_nil();
  pack_text(pk, "medium");
  pack_text(pk, kMediumGpu);
  pack_text(pk, "lora_name");
  pk.pack_nil();
  pack_text(pk, "extra_keys");  // one entry per block: none (no MM inputs, LoRA or cache salt)
  pk.pack_array(static_cast<uint32_t>(e.block_hashes.size()));
  for (size_t i = 0; i < e.block_hashes.size(); ++i) pk.pack_nil();
  pack_text(pk, "group_idx");
  pk.pack_int32(0);
  pack_text(pk, "kv_cache_spec_kind");
  pack_text(pk, kFullAttention);
}

void pack_map_event(Packer& pk, const KvBlockRemoved& e) {
  pk.pack_map(4);
  pack_text(pk, "type");
  pack_text(pk, "BlockRemoved");
  pack_text(pk, "block_hashes");
  pack_hashes(pk, e.block_hashes);
  pack_text(pk, "medium");
  pack_text(pk, kMediumGpu);
  pack_text(pk, "group_idx");
  pk.pack_int32(0);
}

void pack_map_event(Packer& pk, const KvAllBlocksCleared&) {
  pk.pack_map(1);
  pack_text(pk, "type");
  pack_text(pk, "AllBlocksCleared");
}

}  // namespace

std::string encode_kv_event_batch(double ts, const std::vector<KvEvent>& events,
                                  int32_t data_parallel_rank, KvEventFormat format) {
  msgpack::sbuffer buffer;
  Packer pk(&buffer);
  pk.pack_array(3);
  pack_float64(buffer, ts);
  pk.pack_array(static_cast<uint32_t>(events.size()));
  for (const KvEvent& e : events) {
    if (format == KvEventFormat::kMap) {
      std::visit([&pk](const auto& event) { pack_map_event(pk, event); }, e);
    } else {
      std::visit([&pk](const auto& event) { pack_event(pk, event); }, e);
    }
  }
  pk.pack_int32(data_parallel_rank);
  return std::string(buffer.data(), buffer.size());
}

}  // namespace llm
