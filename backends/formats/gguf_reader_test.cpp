// GGUF reader and writer: the shared vocabulary files, writer round trips, and each error class.
#include "backends/formats/gguf_reader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "backends/formats/gguf_writer.h"
#include "backends/testing/shared_testdata.h"

namespace llm {
namespace {

struct VocabFacts {
  std::string name;
  std::string model;
  size_t n_tokens;
};

TEST(GgufReaderShared, ParsesTheFourVocabularies) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const std::vector<VocabFacts> facts = {{"llama-spm", "llama", 32000},
                                         {"gpt-2", "gpt2", 50257},
                                         {"llama-bpe", "gpt2", 128256},
                                         {"qwen2", "gpt2", 151936}};
  for (const auto& f : facts) {
    SCOPED_TRACE(f.name);
    const GgufFile file = GgufFile::open(testing::vocab_path(f.name));
    EXPECT_EQ(file.version(), 3u);
    EXPECT_EQ(file.alignment(), 32u);
    EXPECT_TRUE(file.tensors().empty());
    EXPECT_EQ(file.get_string("tokenizer.ggml.model"), f.model);
    EXPECT_EQ(file.get_array("tokenizer.ggml.tokens").size(), f.n_tokens);
    EXPECT_EQ(file.get_string_array("tokenizer.ggml.tokens").size(), f.n_tokens);
  }
  const GgufFile spm = GgufFile::open(testing::vocab_path("llama-spm"));
  EXPECT_EQ(spm.get_u32("tokenizer.ggml.bos_token_id"), 1u);
  EXPECT_EQ(spm.get_u32("tokenizer.ggml.eos_token_id"), 2u);
  EXPECT_EQ(spm.get_u32("tokenizer.ggml.unknown_token_id"), 0u);
  EXPECT_EQ(spm.get_f32_array("tokenizer.ggml.scores").size(), 32000u);
  EXPECT_EQ(spm.get_string_array("tokenizer.ggml.tokens")[15043], "\xE2\x96\x81Hello");
  const GgufFile gpt2 = GgufFile::open(testing::vocab_path("gpt-2"));
  EXPECT_EQ(gpt2.get_string_array("tokenizer.ggml.merges").size(), 50000u);
  const GgufFile llama3 = GgufFile::open(testing::vocab_path("llama-bpe"));
  EXPECT_EQ(llama3.get_u32("tokenizer.ggml.bos_token_id"), 128000u);
  EXPECT_EQ(llama3.get_string("tokenizer.ggml.pre"), "llama-bpe");
  EXPECT_EQ(llama3.get_u32("llama.attention.head_count"), 32u);
  EXPECT_EQ(llama3.get_u32("llama.attention.head_count_kv"), 8u);
  EXPECT_FLOAT_EQ(llama3.get_f32("llama.rope.freq_base"), 500000.0f);
  const GgufFile qwen = GgufFile::open(testing::vocab_path("qwen2"));
  EXPECT_EQ(qwen.get_string("tokenizer.ggml.pre"), "qwen2");
}

TEST(GgufReaderShared, TypedAccessorErrorsNameTheKey) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const GgufFile spm = GgufFile::open(testing::vocab_path("llama-spm"));
  try {
    spm.get_u32("tokenizer.ggml.model");
    FAIL() << "expected GgufError";
  } catch (const GgufError& e) {
    EXPECT_NE(std::string(e.what()).find("tokenizer.ggml.model"), std::string::npos) << e.what();
    EXPECT_GT(e.offset(), 0u);
  }
  EXPECT_THROW(spm.get_string("no.such.key"), GgufError);
  EXPECT_FALSE(spm.find_u32("no.such.key").has_value());
}

GgufWriter sample_writer(uint32_t version = 3) {
  GgufWriter w(version);
  w.set_string("general.architecture", "llama");
  w.set_u32("llama.block_count", 4);
  w.set_i32("some.negative", -7);
  w.set_f32("llama.rope.freq_base", 10000.0f);
  w.set_bool("tokenizer.ggml.add_bos_token", true);
  w.set("u8", GgufValue::from_u64(GgufType::kUint8, 200));
  w.set("i8", GgufValue::from_i64(GgufType::kInt8, -100));
  w.set("u16", GgufValue::from_u64(GgufType::kUint16, 60000));
  w.set("i16", GgufValue::from_i64(GgufType::kInt16, -30000));
  w.set("u64", GgufValue::from_u64(GgufType::kUint64, 1ull << 40));
  w.set("i64", GgufValue::from_i64(GgufType::kInt64, -(1ll << 40)));
  w.set("f64", GgufValue::from_f64(GgufType::kFloat64, 0.125));
  w.set_string_array("strs", {"a", "", "\xE2\x96\x81hello"});
  w.set_f32_array("floats", {1.5f, -2.0f});
  w.set_i32_array("ints", {1, -2, 3});
  w.set("nested",
        GgufValue::from_array(
            GgufType::kArray,
            {GgufValue::from_array(GgufType::kUint8, {GgufValue::from_u64(GgufType::kUint8, 1)}),
             GgufValue::from_array(GgufType::kString, {GgufValue::from_string("x")})}));
  std::vector<uint8_t> a(4 * 3 * 2);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<uint8_t>(i);
  w.add_tensor("a", {3, 2}, GgmlType::kF32, a);
  w.add_tensor("b", {5}, GgmlType::kF16, std::vector<uint8_t>(10, 0xAB));
  w.add_tensor("q", {64}, GgmlType::kQ8_0, std::vector<uint8_t>(68, 0x11));
  return w;
}

TEST(GgufWriter, RoundTripsMetadataAndTensors) {
  for (uint32_t version : {2u, 3u}) {
    GgufWriter w = sample_writer(version);
    const GgufFile f = GgufFile::parse(w.to_bytes(), "sample");
    EXPECT_EQ(f.version(), version);
    EXPECT_EQ(f.get_string("general.architecture"), "llama");
    EXPECT_EQ(f.get_u32("llama.block_count"), 4u);
    EXPECT_EQ(f.get_i64("some.negative"), -7);
    EXPECT_THROW(f.get_u32("some.negative"), GgufError);
    EXPECT_FLOAT_EQ(f.get_f32("llama.rope.freq_base"), 10000.0f);
    EXPECT_TRUE(f.get_bool("tokenizer.ggml.add_bos_token"));
    EXPECT_EQ(f.get_u32("u8"), 200u);
    EXPECT_EQ(f.get_i64("i8"), -100);
    EXPECT_EQ(f.get_u32("u16"), 60000u);
    EXPECT_EQ(f.get_i64("i16"), -30000);
    EXPECT_EQ(f.get_i64("u64"), 1ll << 40);
    EXPECT_THROW(f.get_u32("u64"), GgufError);
    EXPECT_EQ(f.get_i64("i64"), -(1ll << 40));
    EXPECT_DOUBLE_EQ(f.get_f32("f64"), 0.125);
    EXPECT_EQ(f.get_string_array("strs"), (std::vector<std::string>{"a", "", "\xE2\x96\x81hello"}));
    EXPECT_EQ(f.get_f32_array("floats"), (std::vector<float>{1.5f, -2.0f}));
    EXPECT_EQ(f.get_int_array("ints"), (std::vector<int64_t>{1, -2, 3}));
    const auto& nested = f.get_array("nested");
    ASSERT_EQ(nested.size(), 2u);
    EXPECT_EQ(*nested[1].as_array()->at(0).as_string(), "x");
    // Values compare equal to what was written, in order.
    ASSERT_EQ(f.metadata().size(), 16u);
    EXPECT_EQ(f.metadata()[15].first, "nested");

    ASSERT_EQ(f.tensors().size(), 3u);
    const GgufTensorInfo* a = f.find_tensor("a");
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(a->dims, (std::vector<uint64_t>{3, 2}));
    EXPECT_EQ(a->type, GgmlType::kF32);
    EXPECT_EQ(a->n_bytes, 24u);
    EXPECT_EQ(a->data[5], 5);
    EXPECT_EQ((a->data - f.tensors()[0].data), 0);
    const GgufTensorInfo* b = f.find_tensor("b");
    EXPECT_EQ(b->offset, 32u);
    EXPECT_EQ(b->data[9], 0xAB);
    EXPECT_EQ(f.find_tensor("q")->n_bytes, 68u);
    EXPECT_EQ(f.data_offset() % 32, 0u);
  }
}

TEST(GgufWriter, CustomAlignmentAndFileRoundTrip) {
  GgufWriter w = sample_writer();
  w.set_alignment(64);
  const std::string path = ::testing::TempDir() + "/gguf_writer_test.gguf";
  w.write_file(path);
  const GgufFile f = GgufFile::open(path);
  EXPECT_EQ(f.alignment(), 64u);
  EXPECT_EQ(f.data_offset() % 64, 0u);
  EXPECT_EQ(f.find_tensor("b")->offset, 64u);
  EXPECT_EQ(f.find_tensor("b")->data[0], 0xAB);
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));  // renamed into place
  std::remove(path.c_str());
}

TEST(GgufWriter, AMissingDirectoryIsAnErrorNamingTheFile) {
  const std::string path = ::testing::TempDir() + "/no-such-dir/model.gguf";
  try {
    sample_writer().write_file(path);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write " + path + ": No such file or directory");
  }
}

std::string error_of(std::vector<uint8_t> bytes) {
  try {
    GgufFile::parse(std::move(bytes), "bad.gguf");
  } catch (const GgufError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(GgufReaderErrors, BadMagicVersionAndTruncation) {
  auto bytes = sample_writer().to_bytes();
  auto bad = bytes;
  bad[0] = 'X';
  EXPECT_TRUE(contains(error_of(bad), "bad magic")) << error_of(bad);
  EXPECT_TRUE(contains(error_of(bad), "bad.gguf"));
  bad = bytes;
  bad[4] = 1;
  EXPECT_TRUE(contains(error_of(bad), "unsupported GGUF version 1")) << error_of(bad);
  bad = bytes;
  bad.resize(40);
  EXPECT_TRUE(contains(error_of(bad), "truncated")) << error_of(bad);
  EXPECT_TRUE(contains(error_of({}), "truncated"));
}

TEST(GgufReaderErrors, UnknownValueType) {
  GgufWriter w;
  w.set_u32("k", 1);
  auto bytes = w.to_bytes();
  // header 24 bytes, key length 8 + "k" 1, then the type code.
  bytes[24 + 9] = 42;
  const std::string e = error_of(bytes);
  EXPECT_TRUE(contains(e, "unknown value type 42")) << e;
  EXPECT_TRUE(contains(e, "byte 33")) << e;
}

TEST(GgufReaderErrors, HugeLengthsAreCappedByFileSize) {
  GgufWriter w;
  w.set_string_array("k", {"abc"});
  auto bytes = w.to_bytes();
  // The array length (after key 8+1, type 4, elem type 4) claims 2^62 strings.
  const uint64_t huge = 1ull << 62;
  std::memcpy(&bytes[24 + 9 + 4 + 4], &huge, 8);
  EXPECT_TRUE(contains(error_of(bytes), "does not fit")) << error_of(bytes);
  bytes = w.to_bytes();
  std::memcpy(&bytes[24 + 9 + 4 + 4 + 8], &huge, 8);  // the string's length
  EXPECT_TRUE(contains(error_of(bytes), "truncated")) << error_of(bytes);
}

TEST(GgufReaderErrors, TensorDataPastEndAndMisalignedOffsets) {
  GgufWriter w;
  w.add_tensor("t", {8}, GgmlType::kF32, std::vector<uint8_t>(32, 1));
  auto bytes = w.to_bytes();
  auto cut = bytes;
  cut.resize(cut.size() - 4);
  EXPECT_TRUE(contains(error_of(cut), "past the end")) << error_of(cut);
  // The tensor offset is the last 8 bytes of the tensor info (before padding to 32).
  const size_t info_end = 24 + 8 + 1 + 4 + 8 + 4 + 8;
  auto mis = bytes;
  mis[info_end - 8] = 4;
  EXPECT_TRUE(contains(error_of(mis), "not a multiple of the alignment")) << error_of(mis);
  auto type = bytes;
  type[info_end - 12] = 77;
  EXPECT_TRUE(contains(error_of(type), "unsupported ggml type 77")) << error_of(type);
}

TEST(GgufReaderErrors, MissingFileIsAGgufError) {
  EXPECT_THROW(GgufFile::open("/nonexistent/x.gguf"), GgufError);
}

}  // namespace
}  // namespace llm
