// PackedMatrix: a weight matrix in the layout the CPU backend's matmul reads. The source is
// row-major [n][k] (a row per output, the Hugging Face layout); the packed form cuts the n outputs
// into panels of kPanelWidth columns and stores each panel k-major, [k][kPanelWidth], 64-byte
// aligned (huge_buffer.h), the last panel padded with zeros. A product then streams each panel
// front to back, one cache line per k, and every output accumulates over k in increasing order
// (matmul.h). Thread-safety: immutable after pack_matrix; share it freely.
#pragma once

#include <cstdint>

#include "backends/cpu/huge_buffer.h"
#include "core/ceil_div.h"

namespace llm {

inline constexpr int64_t kPanelWidth = 16;  // one AVX-512 vector of fp32 outputs

struct PackedMatrix {
  int64_t n = 0;  // outputs (rows of the source)
  int64_t k = 0;  // inputs (columns of the source)
  FloatBuffer data;

  int64_t panels() const { return ceil_div(n, kPanelWidth); }
  // Panel p: k rows of kPanelWidth values, row i holding w[p * kPanelWidth + j][i] at j.
  const float* panel(int64_t p) const { return data.get() + p * k * kPanelWidth; }
  bool empty() const { return n == 0; }
};

// Packs w ([n][k], row-major). n, k >= 0; throws std::bad_alloc when memory runs out.
PackedMatrix pack_matrix(const float* w, int64_t n, int64_t k);

}  // namespace llm
