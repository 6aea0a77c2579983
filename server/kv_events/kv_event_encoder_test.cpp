#include "server/kv_events/kv_event_encoder.h"

#include <gtest/gtest.h>

#define MSGPACK_NO_BOOST
#include <msgpack.hpp>
#include <string>
#include <vector>

namespace llm {
namespace {

std::string bytes(std::initializer_list<int> values) {
  std::string s;
  for (int v : values) s.push_back(static_cast<char>(v));
  return s;
}

std::string text(const char* s) { return std::string(s); }

TEST(KvEventEncoder, TheArrayFormatHasOldVllmsLayoutByteForByte) {
  KvBlockStored stored;
  stored.block_hashes = {1};
  stored.token_ids = {5, 300};
  stored.block_size = 2;
  const std::string got = encode_kv_event_batch(1.5, {stored}, 0, KvEventFormat::kArray);
  const std::string want =
      bytes({0x93, 0xcb, 0x3f, 0xf8, 0, 0, 0, 0, 0, 0}) +  // [ts = 1.5 as float64,
      bytes({0x91, 0x98, 0xab}) + text("BlockStored") +    //  [["BlockStored",
      bytes({0x91, 0xcf, 0, 0, 0, 0, 0, 0, 0, 1}) +        //    [hash 1 as fixed uint64],
      bytes({0xc0}) +                                      //    parent nil,
      bytes({0x92, 0x05, 0xcd, 0x01, 0x2c}) +              //    [5, 300],
      bytes({0x02, 0xc0, 0xa3}) + text("GPU") +            //    2, lora_id nil, "GPU",
      bytes({0xc0}) +                                      //    lora_name nil]],
      bytes({0x00});                                       //  dp rank 0]
  EXPECT_EQ(got, want);
}

TEST(KvEventEncoder, EveryEventKindDecodesInTheArrayFormat) {
  KvBlockStored stored;
  stored.block_hashes = {0xfedcba9876543210ULL, 7};
  stored.parent_block_hash = 42;
  stored.token_ids = {1, 2, 3, 4};
  stored.block_size = 2;
  const std::vector<KvEvent> events = {stored, KvBlockRemoved{{9, 10}}, KvAllBlocksCleared{}};
  const std::string payload =
      encode_kv_event_batch(1700000000.25, events, 3, KvEventFormat::kArray);

  const msgpack::object_handle handle = msgpack::unpack(payload.data(), payload.size());
  const msgpack::object& batch = handle.get();
  ASSERT_EQ(batch.type, msgpack::type::ARRAY);
  ASSERT_EQ(batch.via.array.size, 3u);
  EXPECT_DOUBLE_EQ(batch.via.array.ptr[0].as<double>(), 1700000000.25);
  EXPECT_EQ(batch.via.array.ptr[2].as<int>(), 3);
  const msgpack::object& list = batch.via.array.ptr[1];
  ASSERT_EQ(list.via.array.size, 3u);

  const msgpack::object& s = list.via.array.ptr[0];
  ASSERT_EQ(s.via.array.size, 8u);
  EXPECT_EQ(s.via.array.ptr[0].as<std::string>(), "BlockStored");
  EXPECT_EQ(s.via.array.ptr[1].as<std::vector<uint64_t>>(), stored.block_hashes);
  EXPECT_EQ(s.via.array.ptr[2].as<uint64_t>(), 42u);
  EXPECT_EQ(s.via.array.ptr[3].as<std::vector<int32_t>>(), stored.token_ids);
  EXPECT_EQ(s.via.array.ptr[4].as<int>(), 2);
  EXPECT_TRUE(s.via.array.ptr[5].is_nil());
  EXPECT_EQ(s.via.array.ptr[6].as<std::string>(), "GPU");
  EXPECT_TRUE(s.via.array.ptr[7].is_nil());

  const msgpack::object& r = list.via.array.ptr[1];
  ASSERT_EQ(r.via.array.size, 3u);
  EXPECT_EQ(r.via.array.ptr[0].as<std::string>(), "BlockRemoved");
  EXPECT_EQ(r.via.array.ptr[1].as<std::vector<uint64_t>>(), (std::vector<uint64_t>{9, 10}));
  EXPECT_EQ(r.via.array.ptr[2].as<std::string>(), "GPU");

  const msgpack::object& c = list.via.array.ptr[2];
  ASSERT_EQ(c.via.array.size, 1u);
  EXPECT_EQ(c.via.array.ptr[0].as<std::string>(), "AllBlocksCleared");
}

TEST(KvEventEncoder, TheTimestampIsFloat64EvenWhenIntegral) {
  const std::string got = encode_kv_event_batch(0, {}, 1);
  EXPECT_EQ(got, bytes({0x93, 0xcb, 0, 0, 0, 0, 0, 0, 0, 0, 0x90, 0x01}));
  const std::string second = encode_kv_event_batch(1700000000, {}, 0);
  EXPECT_EQ(static_cast<uint8_t>(second[1]), 0xcb);
  EXPECT_EQ(second.size(), 12u);
}

TEST(KvEventEncoder, SmallHashesStillTakeNineBytes) {
  // Two batches that differ only in a hash's magnitude have the same length.
  const auto size_with = [](uint64_t hash) {
    return encode_kv_event_batch(0, {KvBlockRemoved{{hash}}}, 0).size();
  };
  EXPECT_EQ(size_with(0), size_with(~uint64_t{0}));
  EXPECT_EQ(size_with(1), size_with(uint64_t{1} << 40));
}

// The map format (vLLM PR #42892): each event a map tagged "type" with vLLM's field names.
const msgpack::object* field(const msgpack::object& map, const std::string& key) {
  if (map.type != msgpack::type::MAP) return nullptr;
  for (uint32_t i = 0; i < map.via.map.size; ++i) {
    if (map.via.map.ptr[i].key.as<std::string>() == key) return &map.via.map.ptr[i].val;
  }
  return nullptr;
}

std::vector<std::string> keys(const msgpack::object& map) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < map.via.map.size; ++i) {
    out.push_back(map.via.map.ptr[i].key.as<std::string>());
  }
  return out;
}

TEST(KvEventEncoder, TheMapFormatIsTheDefault) {
  const std::vector<KvEvent> events = {KvBlockRemoved{{9}}};
  EXPECT_EQ(encode_kv_event_batch(2.0, events, 1),
            encode_kv_event_batch(2.0, events, 1, KvEventFormat::kMap));
  EXPECT_NE(encode_kv_event_batch(2.0, events, 1),
            encode_kv_event_batch(2.0, events, 1, KvEventFormat::kArray));
}

TEST(KvEventEncoder, EveryEventKindDecodesAsATaggedMap) {
  KvBlockStored stored;
  stored.block_hashes = {0xfedcba9876543210ULL, 7};
  stored.parent_block_hash = 42;
  stored.token_ids = {1, 2, 3, 4};
  stored.block_size = 2;
  KvBlockStored first;  // a request's first block: no parent
  first.block_hashes = {5};
  first.token_ids = {8, 9};
  first.block_size = 2;
  const std::vector<KvEvent> events = {stored, first, KvBlockRemoved{{9, 10}},
                                       KvAllBlocksCleared{}};
  const std::string payload = encode_kv_event_batch(1700000000.25, events, 3);

  const msgpack::object_handle handle = msgpack::unpack(payload.data(), payload.size());
  const msgpack::object& batch = handle.get();
  ASSERT_EQ(batch.type, msgpack::type::ARRAY);  // the batch stays positional
  ASSERT_EQ(batch.via.array.size, 3u);
  EXPECT_DOUBLE_EQ(batch.via.array.ptr[0].as<double>(), 1700000000.25);
  EXPECT_EQ(batch.via.array.ptr[2].as<int>(), 3);
  const msgpack::object& list = batch.via.array.ptr[1];
  ASSERT_EQ(list.via.array.size, 4u);

  const msgpack::object& s = list.via.array.ptr[0];
  ASSERT_EQ(s.type, msgpack::type::MAP);
  EXPECT_EQ(keys(s),
            (std::vector<std::string>{"type", "block_hashes", "parent_block_hash", "token_ids",
                                      "block_size", "lora_id", "medium", "lora_name", "extra_keys",
                                      "group_idx", "kv_cache_spec_kind"}));
  EXPECT_EQ(field(s, "type")->as<std::string>(), "BlockStored");
  EXPECT_EQ(field(s, "block_hashes")->as<std::vector<uint64_t>>(), stored.block_hashes);
  EXPECT_EQ(field(s, "parent_block_hash")->as<uint64_t>(), 42u);
  EXPECT_EQ(field(s, "token_ids")->as<std::vector<int32_t>>(), stored.token_ids);
  EXPECT_EQ(field(s, "block_size")->as<int>(), 2);
  EXPECT_TRUE(field(s, "lora_id")->is_nil());
  EXPECT_EQ(field(s, "medium")->as<std::string>(), "GPU");
  EXPECT_TRUE(field(s, "lora_name")->is_nil());
  const msgpack::object& extra = *field(s, "extra_keys");
  ASSERT_EQ(extra.type, msgpack::type::ARRAY);
  ASSERT_EQ(extra.via.array.size, 2u);  // one per block
  EXPECT_TRUE(extra.via.array.ptr[0].is_nil());
  EXPECT_TRUE(extra.via.array.ptr[1].is_nil());
  EXPECT_EQ(field(s, "group_idx")->as<int>(), 0);
  EXPECT_EQ(field(s, "kv_cache_spec_kind")->as<std::string>(), "full_attention");
  EXPECT_EQ(field(s, "kv_cache_spec_sliding_window"), nullptr);  // None: left out

  EXPECT_TRUE(field(list.via.array.ptr[1], "parent_block_hash")->is_nil());

  const msgpack::object& r = list.via.array.ptr[2];
  EXPECT_EQ(keys(r), (std::vector<std::string>{"type", "block_hashes", "medium", "group_idx"}));
  EXPECT_EQ(field(r, "type")->as<std::string>(), "BlockRemoved");
  EXPECT_EQ(field(r, "block_hashes")->as<std::vector<uint64_t>>(), (std::vector<uint64_t>{9, 10}));
  EXPECT_EQ(field(r, "medium")->as<std::string>(), "GPU");
  EXPECT_EQ(field(r, "group_idx")->as<int>(), 0);

  const msgpack::object& c = list.via.array.ptr[3];
  EXPECT_EQ(keys(c), (std::vector<std::string>{"type"}));
  EXPECT_EQ(field(c, "type")->as<std::string>(), "AllBlocksCleared");
}

TEST(KvEventEncoder, MapHashesAreFixedWidthToo) {
  const std::string got = encode_kv_event_batch(0, {KvBlockRemoved{{1}}}, 0);
  const std::string want = bytes({0x93, 0xcb, 0, 0, 0, 0, 0, 0, 0, 0, 0x91, 0x84}) + bytes({0xa4}) +
                           text("type") + bytes({0xac}) + text("BlockRemoved") + bytes({0xac}) +
                           text("block_hashes") + bytes({0x91, 0xcf, 0, 0, 0, 0, 0, 0, 0, 1}) +
                           bytes({0xa6}) + text("medium") + bytes({0xa3}) + text("GPU") +
                           bytes({0xa9}) + text("group_idx") + bytes({0x00, 0x00});
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace llm
