#include "backends/cpu/vector_ops.h"

#include <cmath>

#include "backends/cpu/matmul.h"

namespace llm {

void rms_norm(const float* x, const float* weight, int64_t n, double eps, float* out) {
  const float sum_sq = dot(x, x, n);
  const float mean = sum_sq / static_cast<float>(n);
  const float inv = 1.0f / std::sqrt(mean + static_cast<float>(eps));
  for (int64_t i = 0; i < n; ++i) out[i] = weight[i] * (x[i] * inv);
}

void silu_mul(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) {
    const float g = gate[i];
    out[i] = g / (1.0f + std::exp(-g)) * up[i];
  }
}

void add_in_place(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace llm
