#include "backends/cuda/graph_buckets.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(GraphBuckets, PowersOfTwoUpToTheFirstCoveringMaxNumSeqs) {
  EXPECT_EQ(decode_graph_buckets(1), (std::vector<int32_t>{1}));
  EXPECT_EQ(decode_graph_buckets(5), (std::vector<int32_t>{1, 2, 4, 8}));
  EXPECT_EQ(decode_graph_buckets(64), (std::vector<int32_t>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(decode_graph_buckets(1024), (std::vector<int32_t>{1, 2, 4, 8, 16, 32, 64, 128, 256}));
}

TEST(GraphBuckets, BatchReplaysTheSmallestBucketThatHoldsIt) {
  const std::vector<int32_t> all = decode_graph_buckets(256);
  struct Row {
    int64_t batch;
    int32_t bucket;
  };
  const Row table[] = {{0, 0},   {1, 1},    {2, 2},     {3, 4},     {4, 4},   {5, 8}, {17, 32},
                       {64, 64}, {65, 128}, {200, 256}, {256, 256}, {257, 0}, {-1, 0}};
  for (const Row& r : table) {
    EXPECT_EQ(decode_graph_bucket(r.batch, all), r.bucket) << "batch " << r.batch;
  }
}

TEST(GraphBuckets, BatchAboveTheEnginesBucketsRunsEagerly) {
  const std::vector<int32_t> small = decode_graph_buckets(6);  // 1, 2, 4, 8
  EXPECT_EQ(decode_graph_bucket(8, small), 8);
  EXPECT_EQ(decode_graph_bucket(9, small), 0);
}

}  // namespace
}  // namespace llm
