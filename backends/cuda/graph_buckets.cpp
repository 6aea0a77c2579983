#include "backends/cuda/graph_buckets.h"

namespace llm {

std::vector<int32_t> decode_graph_buckets(int64_t max_num_seqs) {
  std::vector<int32_t> buckets;
  for (int32_t b = 1; b <= kMaxGraphBucket; b *= 2) {
    buckets.push_back(b);
    if (b >= max_num_seqs) break;
  }
  return buckets;
}

int32_t decode_graph_bucket(int64_t batch, const std::vector<int32_t>& buckets) {
  if (batch <= 0) return 0;
  for (int32_t b : buckets) {
    if (b >= batch) return b;
  }
  return 0;
}

}  // namespace llm
