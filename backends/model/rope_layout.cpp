#include "backends/model/rope_layout.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace llm {
namespace {

// Copies rows so that out row `to(r)` = in row r for every row r of every head.
template <typename RowMap>
std::vector<float> permute_rows(std::span<const float> in, int64_t n_heads, int64_t head_dim,
                                int64_t cols, RowMap to) {
  if (head_dim <= 0 || head_dim % 2 != 0 || n_heads <= 0 || cols <= 0 ||
      static_cast<int64_t>(in.size()) != n_heads * head_dim * cols) {
    throw std::invalid_argument("RoPE row permutation: " + std::to_string(in.size()) +
                                " values do not form " + std::to_string(n_heads) + " heads of " +
                                std::to_string(head_dim) + " (even) rows of " +
                                std::to_string(cols));
  }
  std::vector<float> out(in.size());
  const int64_t half = head_dim / 2;
  for (int64_t h = 0; h < n_heads; ++h) {
    for (int64_t r = 0; r < head_dim; ++r) {
      const int64_t src = (h * head_dim + r) * cols;
      const int64_t dst = (h * head_dim + to(r, half)) * cols;
      std::copy_n(in.begin() + src, cols, out.begin() + dst);
    }
  }
  return out;
}

}  // namespace

std::vector<float> rotate_half_to_interleaved(std::span<const float> rows, int64_t n_heads,
                                              int64_t head_dim, int64_t cols) {
  // Rotate-half row s*half + i goes to interleaved row 2i + s.
  return permute_rows(rows, n_heads, head_dim, cols,
                      [](int64_t r, int64_t half) { return 2 * (r % half) + r / half; });
}

std::vector<float> interleaved_to_rotate_half(std::span<const float> rows, int64_t n_heads,
                                              int64_t head_dim, int64_t cols) {
  // Interleaved row 2i + s goes back to rotate-half row s*half + i.
  return permute_rows(rows, n_heads, head_dim, cols,
                      [](int64_t r, int64_t half) { return (r % 2) * half + r / 2; });
}

}  // namespace llm
