#include "backends/cpu/packed_matrix.h"

#include <algorithm>
#include <new>

namespace llm {

PackedMatrix pack_matrix(const float* w, int64_t n, int64_t k) {
  PackedMatrix m;
  m.n = n;
  m.k = k;
  const int64_t floats = std::max<int64_t>(m.panels() * k * kPanelWidth, kPanelWidth);
  const size_t bytes = (static_cast<size_t>(floats) * sizeof(float) + 63) / 64 * 64;
  m.data.reset(static_cast<float*>(std::aligned_alloc(64, bytes)));
  if (!m.data) throw std::bad_alloc();
  float* out = m.data.get();
  for (int64_t p = 0; p < m.panels(); ++p) {
    const int64_t c0 = p * kPanelWidth, cols = std::min(kPanelWidth, n - c0);
    float* panel = out + p * k * kPanelWidth;
    for (int64_t i = 0; i < k; ++i) {
      float* row = panel + i * kPanelWidth;
      for (int64_t j = 0; j < cols; ++j) row[j] = w[(c0 + j) * k + i];
      std::fill(row + cols, row + kPanelWidth, 0.0f);
    }
  }
  return m;
}

}  // namespace llm
