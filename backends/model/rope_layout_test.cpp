// The GGUF llama Q/K row permutation on hand-computed examples (so a wrong permutation fails), and
// its inverse.
#include "backends/model/rope_layout.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(RopeLayout, OneColumnTwoHeadsByHand) {
  // Rotate-half: head 0 rows a0..a3 pair (a0,a2) and (a1,a3). Interleaved stores pairs adjacent.
  const std::vector<float> hf = {10, 11, 12, 13, 20, 21, 22, 23};
  const std::vector<float> gguf = {10, 12, 11, 13, 20, 22, 21, 23};
  EXPECT_EQ(rotate_half_to_interleaved(hf, 2, 4, 1), gguf);
  EXPECT_EQ(interleaved_to_rotate_half(gguf, 2, 4, 1), hf);
}

TEST(RopeLayout, HeadDimEightMovesWholeRows) {
  // One head of 8 rows with 2 columns; row r holds (r, 100 + r). llama.cpp's permute reshapes to
  // (heads, 2, 4, cols) and swaps axes 1 and 2: interleaved row 2i+s = rotate-half row 4s+i.
  std::vector<float> hf;
  for (int r = 0; r < 8; ++r) {
    hf.push_back(static_cast<float>(r));
    hf.push_back(static_cast<float>(100 + r));
  }
  const std::vector<float> expected = {0, 100, 4, 104, 1, 101, 5, 105,
                                       2, 102, 6, 106, 3, 103, 7, 107};
  EXPECT_EQ(rotate_half_to_interleaved(hf, 1, 8, 2), expected);
  EXPECT_EQ(interleaved_to_rotate_half(expected, 1, 8, 2), hf);
}

TEST(RopeLayout, HeadDimTwoIsTheIdentity) {
  const std::vector<float> v = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(rotate_half_to_interleaved(v, 3, 2, 1), v);
}

TEST(RopeLayout, RoundTripOnLargerShapes) {
  std::vector<float> v(3 * 16 * 5);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
  const std::vector<float> p = rotate_half_to_interleaved(v, 3, 16, 5);
  EXPECT_NE(p, v);
  EXPECT_EQ(interleaved_to_rotate_half(p, 3, 16, 5), v);
}

TEST(RopeLayout, BadShapesAreRejected) {
  EXPECT_THROW(rotate_half_to_interleaved(std::vector<float>(12), 2, 3, 2), std::invalid_argument);
  EXPECT_THROW(rotate_half_to_interleaved(std::vector<float>(10), 2, 4, 1), std::invalid_argument);
}

}  // namespace
}  // namespace llm
