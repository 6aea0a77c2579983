#include "backends/cpu/attention.h"

#include <cmath>

#include "backends/cpu/matmul.h"

namespace llm {

void paged_attention(const float* q, const PagedKvCache& kv, int64_t layer, int64_t kv_head,
                     std::span<const int32_t> block_table, int64_t pos, float scale,
                     std::vector<float>& scores, float* out) {
  const int64_t n = pos + 1, d = kv.head_dim, bs = kv.block_size;
  scores.resize(static_cast<size_t>(n));
  float max_score = -INFINITY;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t off = kv.offset(layer, block_table[static_cast<size_t>(j / bs)], kv_head, j % bs);
    const float s = dot(q, kv.k.get() + off, d) * scale;
    scores[static_cast<size_t>(j)] = s;
    if (s > max_score) max_score = s;
  }
  float sum = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    float& s = scores[static_cast<size_t>(j)];
    s = std::exp(s - max_score);
    sum += s;
  }
  for (int64_t i = 0; i < d; ++i) out[i] = 0.0f;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t off = kv.offset(layer, block_table[static_cast<size_t>(j / bs)], kv_head, j % bs);
    const float p = scores[static_cast<size_t>(j)];
    const float* v = kv.v.get() + off;
    for (int64_t i = 0; i < d; ++i) out[i] += p * v[i];
  }
  const float inv = 1.0f / sum;
  for (int64_t i = 0; i < d; ++i) out[i] *= inv;
}

}  // namespace llm
