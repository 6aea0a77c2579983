// Safetensors writer/reader tests: round trips (fixed and RapidCheck-generated), every truncation,
// random header bit flips, hand-made corrupt headers, and sharded indexes.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "backends/formats/safetensors_reader.h"
#include "backends/formats/safetensors_writer.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("st_test_" + std::to_string(getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::byte> bytes_of(std::string_view s) {
  std::vector<std::byte> b(s.size());
  std::memcpy(b.data(), s.data(), s.size());
  return b;
}

// A file image with the given header text and data bytes.
std::vector<std::byte> image(const std::string& header, size_t data_bytes) {
  std::vector<std::byte> out(8);
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<std::byte>((n >> (8 * i)) & 0xff);
  auto h = bytes_of(header);
  out.insert(out.end(), h.begin(), h.end());
  out.resize(out.size() + data_bytes, std::byte{0x5a});
  return out;
}

SafetensorsWriter small_writer() {
  SafetensorsWriter w;
  std::vector<float> a = {1, 2, 3, 4, 5, 6};
  w.add_f32("model.embed_tokens.weight", {2, 3}, a);
  std::vector<std::byte> b(2 * 4, std::byte{0x3f});
  w.add("model.norm.weight", SafetensorsDType::kBF16, {4}, b);
  std::vector<std::byte> c(3, std::byte{7});
  w.add("scale", SafetensorsDType::kI8, {3}, c);
  w.set_metadata("format", "pt");
  return w;
}

// Checks the invariants a successful parse promises.
void check_consistent(const SafetensorsFile& f, size_t file_size) {
  const std::byte* lo = nullptr;
  for (const SafetensorsTensor& t : f.tensors()) {
    auto d = f.data(t);
    ASSERT_EQ(d.size(), t.size);
    ASSERT_EQ(t.size, t.num_elements * safetensors_dtype_size(t.dtype));
    if (lo == nullptr || d.data() < lo) lo = d.data();
    volatile std::byte sink{};
    for (std::byte x : d) sink = x;  // touch every byte (ASan catches reads past the end)
    (void)sink;
  }
  (void)file_size;
}

TEST(Safetensors, RoundTripFile) {
  fs::path dir = temp_dir("roundtrip");
  std::string path = (dir / "model.safetensors").string();
  small_writer().write(path);
  SafetensorsFile f = SafetensorsFile::open(path);
  ASSERT_EQ(f.tensors().size(), 3u);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  const SafetensorsTensor& e = f.at("model.embed_tokens.weight");
  EXPECT_EQ(e.dtype, SafetensorsDType::kF32);
  EXPECT_EQ(e.shape, (std::vector<int64_t>{2, 3}));
  std::vector<float> back(6);
  std::memcpy(back.data(), f.data(e).data(), 24);
  EXPECT_EQ(back, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(f.data(e).data()) % 4, 0u);  // data section aligned
  EXPECT_EQ(f.at("scale").shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(f.find("missing"), nullptr);
  try {
    f.at("missing");
    FAIL();
  } catch (const ModelFormatError& err) {
    EXPECT_EQ(err.file(), path);
    EXPECT_EQ(err.field(), "missing");
  }
  SafetensorsFile moved = std::move(f);
  EXPECT_EQ(moved.data(moved.at("scale"))[0], std::byte{7});
  fs::remove_all(dir);
}

// The writer goes through core/pending_file.h: only the file afterwards, and a directory that
// does not exist is an error naming the file, with nothing left behind.
TEST(Safetensors, WriteIsWholeOrNothing) {
  const fs::path dir = temp_dir("atomic");
  const std::string path = (dir / "model.safetensors").string();
  small_writer().write(path);
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"model.safetensors"}));
  const std::string missing = (dir / "no-such-dir" / "model.safetensors").string();
  try {
    small_writer().write(missing);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + missing + ": No such file or directory");
  }
  fs::remove_all(dir);
}

TEST(Safetensors, ScalarsAndEmptyTensors) {
  SafetensorsWriter w;
  std::vector<float> one = {42};
  w.add_f32("scalar", {}, one);
  w.add("empty", SafetensorsDType::kF16, {0, 5}, {});
  w.add("empty2", SafetensorsDType::kF32, {3, 0}, {});
  auto bytes = w.serialize();
  SafetensorsFile f = SafetensorsFile::from_bytes(bytes, "mem");
  EXPECT_TRUE(f.at("scalar").shape.empty());
  EXPECT_EQ(f.at("scalar").num_elements, 1u);
  EXPECT_EQ(f.at("empty").size, 0u);
  EXPECT_EQ(f.at("empty2").num_elements, 0u);
  EXPECT_TRUE(f.metadata().empty());
}

TEST(Safetensors, NoTensors) {
  SafetensorsWriter w;
  SafetensorsFile f = SafetensorsFile::from_bytes(w.serialize(), "mem");
  EXPECT_TRUE(f.tensors().empty());
}

TEST(Safetensors, WriterRejectsBadInput) {
  SafetensorsWriter w;
  std::vector<float> a = {1, 2};
  EXPECT_THROW(w.add_f32("x", {3}, a), std::invalid_argument);
  EXPECT_THROW(w.add_f32("x", {-2}, a), std::invalid_argument);
  EXPECT_THROW(w.add_f32("__metadata__", {2}, a), std::invalid_argument);
  EXPECT_THROW(w.add_f32("bad\xff", {2}, a), std::invalid_argument);
  EXPECT_THROW(w.set_metadata("k", "\xc3"), std::invalid_argument);
  w.add_f32("x", {2}, a);
  EXPECT_THROW(w.add_f32("x", {2}, a), std::invalid_argument);
}

TEST(Safetensors, DTypeNames) {
  for (const char* name : {"BOOL", "U8", "I8", "F8_E4M3", "F8_E5M2", "I16", "U16", "F16", "BF16",
                           "I32", "U32", "F32", "I64", "U64", "F64"}) {
    auto d = parse_safetensors_dtype(name);
    ASSERT_TRUE(d.has_value()) << name;
    EXPECT_STREQ(safetensors_dtype_name(*d), name);
  }
  EXPECT_EQ(safetensors_dtype_size(SafetensorsDType::kBF16), 2u);
  EXPECT_EQ(safetensors_dtype_size(SafetensorsDType::kF64), 8u);
  EXPECT_FALSE(parse_safetensors_dtype("f32").has_value());
  EXPECT_FALSE(parse_safetensors_dtype("Q8_0").has_value());
}

RC_GTEST_PROP(SafetensorsProp, RoundTripRandomTensorSets, ()) {
  const std::vector<SafetensorsDType> dtypes = {SafetensorsDType::kF32,  SafetensorsDType::kF16,
                                                SafetensorsDType::kBF16, SafetensorsDType::kI8,
                                                SafetensorsDType::kU8,   SafetensorsDType::kI64,
                                                SafetensorsDType::kF64,  SafetensorsDType::kBool};
  struct Spec {
    std::string name;
    SafetensorsDType dtype;
    std::vector<int64_t> shape;
    std::vector<std::byte> bytes;
  };
  const int count = *rc::gen::inRange(0, 12);
  std::vector<Spec> specs;
  SafetensorsWriter w;
  for (int i = 0; i < count; ++i) {
    Spec s;
    // Unique names, with arbitrary (possibly non-ASCII, quote- or backslash-containing) text.
    s.name =
        std::to_string(i) + ":" + *rc::gen::container<std::string>(rc::gen::inRange<char>(1, 127));
    s.dtype = *rc::gen::elementOf(dtypes);
    s.shape = *rc::gen::container<std::vector<int64_t>>(*rc::gen::inRange(0, 4),
                                                        rc::gen::inRange<int64_t>(0, 6));
    uint64_t numel = 1;
    for (int64_t d : s.shape) numel *= d;
    s.bytes.resize(numel * safetensors_dtype_size(s.dtype));
    for (std::byte& b : s.bytes) b = static_cast<std::byte>(*rc::gen::arbitrary<uint8_t>());
    w.add(s.name, s.dtype, s.shape, s.bytes);
    specs.push_back(std::move(s));
  }
  auto meta = *rc::gen::container<std::map<std::string, std::string>>(
      rc::gen::container<std::string>(rc::gen::inRange<char>(32, 127)),
      rc::gen::container<std::string>(rc::gen::inRange<char>(1, 127)));
  meta.erase("");
  for (const auto& [k, v] : meta) w.set_metadata(k, v);

  auto bytes = w.serialize();
  RC_ASSERT((bytes.size() - 8 -
             [&] {
               size_t d = 0;
               for (auto& s : specs) d += s.bytes.size();
               return d;
             }()) %
                8 ==
            0);
  SafetensorsFile f = SafetensorsFile::from_bytes(bytes, "mem");
  RC_ASSERT(f.tensors().size() == specs.size());
  RC_ASSERT(f.metadata() == meta);
  for (const Spec& s : specs) {
    const SafetensorsTensor* t = f.find(s.name);
    RC_ASSERT(t != nullptr);
    RC_ASSERT(t->dtype == s.dtype);
    RC_ASSERT(t->shape == s.shape);
    auto d = f.data(*t);
    RC_ASSERT(std::vector<std::byte>(d.begin(), d.end()) == s.bytes);
  }
}

TEST(Safetensors, EveryTruncationIsAnError) {
  auto bytes = small_writer().serialize();
  for (size_t len = 0; len < bytes.size(); ++len) {
    // An exact-size heap copy, so a read past the end is caught by ASan.
    std::span<const std::byte> prefix(bytes.data(), len);
    try {
      SafetensorsFile::from_bytes(prefix, "trunc");
      ADD_FAILURE() << "truncation to " << len << " bytes parsed";
    } catch (const ModelFormatError& e) {
      EXPECT_EQ(e.file(), "trunc");
    }
  }
  EXPECT_NO_THROW(SafetensorsFile::from_bytes(bytes, "full"));
}

TEST(Safetensors, TruncatedFilesOnDisk) {
  fs::path dir = temp_dir("trunc");
  auto bytes = small_writer().serialize();
  for (size_t len : {size_t{0}, size_t{5}, size_t{8}, size_t{40}, bytes.size() - 1}) {
    std::string path = (dir / ("t" + std::to_string(len))).string();
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), len);
    EXPECT_THROW(SafetensorsFile::open(path), ModelFormatError) << len;
  }
  EXPECT_THROW(SafetensorsFile::open((dir / "absent").string()), ModelFormatError);
  fs::remove_all(dir);
}

TEST(Safetensors, RandomHeaderBitFlips) {
  const auto good = small_writer().serialize();
  uint64_t header_end = 8;
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<uint8_t>(good[i]);
  header_end += n;
  std::mt19937_64 rng(12345);
  int parsed = 0, rejected = 0;
  for (int iter = 0; iter < 4000; ++iter) {
    auto bytes = good;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < flips; ++k) {
      size_t pos = rng() % header_end;
      bytes[pos] ^= static_cast<std::byte>(1u << (rng() % 8));
    }
    try {
      SafetensorsFile f = SafetensorsFile::from_bytes(bytes, "flip");
      check_consistent(f, bytes.size());
      ++parsed;
    } catch (const ModelFormatError& e) {
      EXPECT_EQ(e.file(), "flip");
      ++rejected;
    }
  }
  RecordProperty("parsed", parsed);
  RecordProperty("rejected", rejected);
  EXPECT_GT(rejected, 0);
  EXPECT_EQ(parsed + rejected, 4000);
}

std::string error_of(const std::string& header, size_t data_bytes) {
  try {
    SafetensorsFile::from_bytes(image(header, data_bytes), "bad.safetensors");
  } catch (const ModelFormatError& e) {
    EXPECT_EQ(e.file(), "bad.safetensors");
    return e.what();
  }
  return "(parsed)";
}

TEST(Safetensors, CorruptHeaders) {
  const std::string ok = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
  EXPECT_EQ(error_of(ok, 8), "(parsed)");
  EXPECT_EQ(error_of(ok + "   ", 8), "(parsed)");  // space padding is allowed
  auto has = [](const std::string& msg, const std::string& part) {
    return msg.find(part) != std::string::npos;
  };
  EXPECT_TRUE(has(error_of("{not json", 0), "not valid JSON"));
  EXPECT_TRUE(has(error_of("[1,2]", 0), "not a JSON object"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"F33","shape":[2],"data_offsets":[0,8]}})", 8),
                  "a: unknown dtype \"F33\""));
  EXPECT_TRUE(has(error_of(R"({"a":{"shape":[2],"data_offsets":[0,8]}})", 8), "a: missing"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8),
                  "not a non-negative integer"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"F32","shape":[2.5],"data_offsets":[0,8]}})", 8),
                  "not a non-negative integer"));
  EXPECT_TRUE(
      has(error_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0]}})", 8), "data_offsets"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8),
                  "begin after end"));
  EXPECT_TRUE(
      has(error_of(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8), "needs 12"));
  EXPECT_TRUE(
      has(error_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4), "run past"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 12),
                  "4 bytes after the last tensor"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},
                               "b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                           8),
                  "overlaps"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8),
                  "hole of 4 bytes"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"U8","shape":[4294967296,4294967296,4294967296],
                               "data_offsets":[0,0]}})",
                           0),
                  "overflows"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"U8","shape":[18446744073709551615],
                               "data_offsets":[0,0]}})",
                           0),
                  "overflows"));
  EXPECT_TRUE(has(error_of(R"({"a":{"dtype":"F32","shape":[2],
                               "data_offsets":[18446744073709551615,18446744073709551615]}})",
                           8),
                  "run past"));
  EXPECT_TRUE(has(error_of(R"({"__metadata__":{"k":1}})", 0), "__metadata__"));
  EXPECT_TRUE(has(error_of(R"({"__metadata__":[]})", 0), "__metadata__"));
  EXPECT_TRUE(has(error_of(R"({"a":7})", 0), "a: tensor entry is not an object"));
  EXPECT_TRUE(has(error_of("{\"a\xff\":1}", 0), "not valid JSON"));

  // Header length fields that lie.
  auto img = image(ok, 8);
  img[0] = std::byte{0xff};
  EXPECT_THROW(SafetensorsFile::from_bytes(img, "x"), ModelFormatError);
  img[7] = std::byte{0x80};  // ~2^63
  EXPECT_THROW(SafetensorsFile::from_bytes(img, "x"), ModelFormatError);
  std::vector<std::byte> huge(8);
  huge[3] = std::byte{0x10};  // 256 MiB header length: over the cap
  try {
    SafetensorsFile::from_bytes(huge, "huge");
    FAIL();
  } catch (const ModelFormatError& e) {
    EXPECT_TRUE(has(e.what(), "limit"));
  }
}

TEST(ShardedSafetensors, OpensIndexAndShards) {
  fs::path dir = temp_dir("sharded");
  std::vector<float> a = {1, 2}, b = {3, 4, 5};
  SafetensorsWriter w1, w2;
  w1.add_f32("a", {2}, a);
  w2.add_f32("b", {3}, b);
  w1.write((dir / "model-00001-of-00002.safetensors").string());
  w2.write((dir / "model-00002-of-00002.safetensors").string());
  auto write_index = [&](const std::string& text) {
    std::ofstream((dir / "model.safetensors.index.json").string()) << text;
    return (dir / "model.safetensors.index.json").string();
  };
  std::string index = write_index(R"({"metadata":{"total_size":20},"weight_map":{
      "a":"model-00001-of-00002.safetensors","b":"model-00002-of-00002.safetensors"}})");
  ShardedSafetensors s = ShardedSafetensors::open(index);
  EXPECT_EQ(s.tensor_names(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(s.shards().size(), 2u);
  auto rb = s.at("b");
  float b1;
  std::memcpy(&b1, s.data(rb).data() + 4, 4);
  EXPECT_EQ(b1, 4.0f);
  EXPECT_FALSE(s.find("c").has_value());
  EXPECT_THROW(s.at("c"), ModelFormatError);

  EXPECT_THROW(ShardedSafetensors::open(write_index(R"({"weight_map":{
      "a":"model-00002-of-00002.safetensors","b":"model-00002-of-00002.safetensors"}})")),
               ModelFormatError);
  EXPECT_THROW(ShardedSafetensors::open(write_index(R"({"weight_map":{"a":"../etc/passwd"}})")),
               ModelFormatError);
  EXPECT_THROW(ShardedSafetensors::open(write_index(R"({"weight_map":{"a":"missing.st"}})")),
               ModelFormatError);
  EXPECT_THROW(ShardedSafetensors::open(write_index(R"({"weight_map":[]})")), ModelFormatError);
  EXPECT_THROW(ShardedSafetensors::open(write_index(R"({"weight_map":{"a":1}})")),
               ModelFormatError);
  EXPECT_THROW(ShardedSafetensors::open(write_index("{")), ModelFormatError);
  // A tensor in a shard the weight map places elsewhere.
  SafetensorsWriter w3;
  w3.add_f32("a", {2}, a);
  w3.add_f32("b", {3}, b);
  w3.write((dir / "dup.safetensors").string());
  try {
    ShardedSafetensors::open(write_index(R"({"weight_map":{
        "a":"model-00001-of-00002.safetensors","b":"dup.safetensors"}})"));
    FAIL();
  } catch (const ModelFormatError& e) {
    EXPECT_EQ(e.field(), "a");
    EXPECT_NE(std::string(e.what()).find("places it in"), std::string::npos);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace llm
