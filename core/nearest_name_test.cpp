// "Did you mean": the edit distance (a table of known distances, and properties every distance
// has) and which known name a mistyped one is taken for.
#include "core/nearest_name.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

namespace llm {
namespace {

TEST(EditDistance, KnownDistances) {
  struct Case {
    const char* a;
    const char* b;
    size_t distance;
  };
  const Case cases[] = {
      {"", "", 0},
      {"", "abc", 3},
      {"abc", "abc", 0},
      {"--max-num-seq", "--max-num-seqs", 1},    // a deletion
      {"--max-num-seqss", "--max-num-seqs", 1},  // an insertion
      {"--max-num-sexs", "--max-num-seqs", 1},   // a substitution
      {"relpay", "replay", 1},                   // two neighbours swapped count once
      {"kitten", "sitting", 3},
      {"ca", "abc", 3},  // the optimal-string-alignment distance (Damerau's would be 2)
  };
  for (const Case& c : cases) {
    EXPECT_EQ(edit_distance(c.a, c.b), c.distance) << c.a << " / " << c.b;
    EXPECT_EQ(edit_distance(c.b, c.a), c.distance) << c.b << " / " << c.a;
  }
}

RC_GTEST_PROP(EditDistance, IsAMetricBoundedByTheLongerLength, ()) {
  const auto a = *rc::gen::container<std::string>(rc::gen::elementOf(std::string("ab-")));
  const auto b = *rc::gen::container<std::string>(rc::gen::elementOf(std::string("ab-")));
  const size_t d = edit_distance(a, b);
  RC_ASSERT(d == edit_distance(b, a));
  RC_ASSERT((d == 0) == (a == b));
  RC_ASSERT(d <= std::max(a.size(), b.size()));
  RC_ASSERT(d >= (a.size() > b.size() ? a.size() - b.size() : b.size() - a.size()));
}

TEST(NearestName, OnlyALikelyTypo) {
  const std::vector<std::string> flags = {"--max-num-batched-tokens", "--max-num-seqs",
                                          "--max-model-len", "--port", "--help"};
  EXPECT_EQ(nearest_name("--max-num-seq", flags), "--max-num-seqs");
  EXPECT_EQ(nearest_name("--max-model-length", flags), "--max-model-len");  // 3 edits of 16
  EXPECT_EQ(nearest_name("--prot", flags), "--port");
  EXPECT_EQ(nearest_name("--max-num", flags), "");  // a prefix of two: no guess
  EXPECT_EQ(nearest_name("--pt", flags), "");       // a short word has to be nearly right
  EXPECT_EQ(nearest_name("--bogus", flags), "");
  EXPECT_EQ(nearest_name("--anything", {}), "");
  // Among equally near names, the first given.
  EXPECT_EQ(nearest_name("--ab", {"--ac", "--ad"}), "--ac");
  EXPECT_EQ(nearest_name("relpay", {"tokenize", "replay", "sweep"}), "replay");
}

}  // namespace
}  // namespace llm
