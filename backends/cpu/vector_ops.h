// Row-wise fp32 operations of the decoder besides the matrix products: RMSNorm, SwiGLU's
// silu(gate) * up, and in-place adds. Each output depends only on its own row, reduced in a fixed
// order (RMSNorm's sum of squares uses dot() from matmul.h), so results are batch invariant.
// Thread-safety: pure functions writing only their outputs.
#pragma once

#include <cstdint>

namespace llm {

// out = weight * x / sqrt(mean(x^2) + eps), like Hugging Face's LlamaRMSNorm in fp32.
void rms_norm(const float* x, const float* weight, int64_t n, double eps, float* out);
// out[i] = silu(gate[i]) * up[i], silu(g) = g / (1 + exp(-g)) with fast_exp.h's exp, each element
// by the same vector code whatever n (the tail is masked), so an element's bits do not depend on n.
void silu_mul(const float* gate, const float* up, int64_t n, float* out);
// y[i] += x[i].
void add_in_place(float* y, const float* x, int64_t n);

}  // namespace llm
