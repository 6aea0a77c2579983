// A truncated or corrupted GGUF file gives a valid parse or a GgufError, never a crash or a read
// past the end: every truncation of a small file, random bit flips (deterministic and RapidCheck),
// and sampled truncations of the real llama-spm vocabulary.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <iostream>
#include <random>

#include "backends/formats/gguf_reader.h"
#include "backends/formats/gguf_writer.h"
#include "backends/formats/mapped_file.h"
#include "backends/testing/shared_testdata.h"

namespace llm {
namespace {

std::vector<uint8_t> small_file() {
  GgufWriter w;
  w.set_string("general.architecture", "llama");
  w.set_u32("n", 7);
  w.set_f32("f", 0.5f);
  w.set_bool("b", true);
  w.set_string_array("tokens", {"<unk>", "a", "bc", "\xE2\x96\x81"});
  w.set_i32_array("types", {2, 1, 1, 1});
  w.set("nested",
        GgufValue::from_array(GgufType::kArray,
                              {GgufValue::from_array(
                                  GgufType::kInt16, {GgufValue::from_i64(GgufType::kInt16, -3)})}));
  w.add_tensor("w", {4, 2}, GgmlType::kF32, std::vector<uint8_t>(32, 7));
  w.add_tensor("v", {3}, GgmlType::kF16, std::vector<uint8_t>(6, 9));
  return w.to_bytes();
}

// Parses and touches everything; returns true for a valid parse, false for a GgufError.
bool parse_or_error(std::vector<uint8_t> bytes) {
  try {
    const GgufFile f = GgufFile::parse(std::move(bytes), "fuzz");
    uint64_t sum = 0;
    for (const auto& t : f.tensors()) {
      if (t.n_bytes) sum += t.data[0] + t.data[t.n_bytes - 1];
    }
    for (const auto& kv : f.metadata()) sum += kv.second.to_debug_string().size();
    return sum != 0 || true;
  } catch (const GgufError&) {
    return false;
  }
}

TEST(GgufRobustness, EveryTruncationOfASmallFileIsAnError) {
  const auto bytes = small_file();
  ASSERT_TRUE(parse_or_error(bytes));
  for (size_t n = 0; n < bytes.size(); ++n) {
    // The padding after the last tensor may go; anything shorter must fail.
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
    const bool ok = parse_or_error(cut);
    if (n < bytes.size() - 26) {
      EXPECT_FALSE(ok) << "truncated to " << n << " bytes parsed";
    }
  }
}

TEST(GgufRobustness, ThousandsOfRandomBitFlips) {
  const auto bytes = small_file();
  std::mt19937_64 rng(12345);
  int valid = 0, errors = 0;
  for (int i = 0; i < 4000; ++i) {
    auto flipped = bytes;
    const int flips = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < flips; ++k) {
      flipped[rng() % flipped.size()] ^= static_cast<uint8_t>(1u << (rng() % 8));
    }
    (parse_or_error(std::move(flipped)) ? valid : errors)++;
  }
  std::cout << "[robustness] 4000 bit-flipped files: " << valid << " valid parses, " << errors
            << " GgufErrors\n";
  EXPECT_EQ(valid + errors, 4000);
  EXPECT_GT(errors, 0);
  RecordProperty("valid", valid);
  RecordProperty("errors", errors);
}

RC_GTEST_PROP(GgufRobustnessProperty, BitFlipsGiveAParseOrAGgufError,
              (const std::vector<std::pair<uint32_t, uint8_t>>& flips)) {
  auto bytes = small_file();
  for (const auto& [pos, bit] : flips) {
    bytes[pos % bytes.size()] ^= static_cast<uint8_t>(1u << (bit % 8));
  }
  parse_or_error(std::move(bytes));  // must not crash or throw anything else
}

RC_GTEST_PROP(GgufRobustnessProperty, RandomBytesAfterTheMagicGiveAnError,
              (const std::vector<uint8_t>& tail)) {
  std::vector<uint8_t> bytes = {'G', 'G', 'U', 'F', 3, 0, 0, 0};
  bytes.insert(bytes.end(), tail.begin(), tail.end());
  parse_or_error(std::move(bytes));
}

TEST(GgufRobustness, SampledTruncationsOfTheLlamaSpmVocabulary) {
  LLM_REQUIRE_TOKENIZER_DATA();
  const auto file = MappedFile::open(testing::vocab_path("llama-spm"));
  const std::vector<uint8_t> bytes(file->data(), file->data() + file->size());
  ASSERT_TRUE(parse_or_error(bytes));
  std::mt19937_64 rng(7);
  std::vector<size_t> cuts = {0, 3, 4, 7, 8, 23, 24, 25, 100, bytes.size() - 1};
  for (int i = 0; i < 40; ++i) cuts.push_back(rng() % bytes.size());
  for (size_t n : cuts) {
    std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
    EXPECT_FALSE(parse_or_error(std::move(cut))) << "truncated to " << n << " bytes parsed";
  }
}

}  // namespace
}  // namespace llm
