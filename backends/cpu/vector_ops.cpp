#include "backends/cpu/vector_ops.h"

#include <cmath>

#include "backends/cpu/fast_exp.h"
#include "backends/cpu/matmul.h"
#include "backends/cpu/simd_target.h"

namespace llm {
namespace {

#if LLM_HAVE_X86
LLM_AVX512 void silu_mul_avx512(const float* gate, const float* up, int64_t n, float* out) {
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m =
        n - i >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << (n - i)) - 1u);
    const __m512 g = _mm512_maskz_loadu_ps(m, gate + i);
    const __m512 e = fast_exp_avx512(_mm512_sub_ps(_mm512_setzero_ps(), g));
    const __m512 s = _mm512_div_ps(g, _mm512_add_ps(_mm512_set1_ps(1.0f), e));
    _mm512_mask_storeu_ps(out + i, m, _mm512_mul_ps(s, _mm512_maskz_loadu_ps(m, up + i)));
  }
}

LLM_AVX2 void silu_mul_avx2(const float* gate, const float* up, int64_t n, float* out) {
  alignas(32) static const int32_t kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                0,  0,  0,  0,  0,  0,  0,  0};
  for (int64_t i = 0; i < n; i += 8) {
    const int64_t left = n - i >= 8 ? 8 : n - i;
    const __m256i m = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - left));
    const __m256 g = _mm256_maskload_ps(gate + i, m);
    const __m256 e = fast_exp_avx2(_mm256_sub_ps(_mm256_setzero_ps(), g));
    const __m256 s = _mm256_div_ps(g, _mm256_add_ps(_mm256_set1_ps(1.0f), e));
    _mm256_maskstore_ps(out + i, m, _mm256_mul_ps(s, _mm256_maskload_ps(up + i, m)));
  }
}
#endif

}  // namespace

void rms_norm(const float* x, const float* weight, int64_t n, double eps, float* out) {
  const float sum_sq = dot(x, x, n);
  const float mean = sum_sq / static_cast<float>(n);
  const float inv = 1.0f / std::sqrt(mean + static_cast<float>(eps));
  for (int64_t i = 0; i < n; ++i) out[i] = weight[i] * (x[i] * inv);
}

void silu_mul(const float* gate, const float* up, int64_t n, float* out) {
#if LLM_HAVE_X86
  const SimdLevel level = simd_level();
  if (level == SimdLevel::kAvx512) return silu_mul_avx512(gate, up, n, out);
  if (level == SimdLevel::kAvx2Fma) return silu_mul_avx2(gate, up, n, out);
#endif
  for (int64_t i = 0; i < n; ++i) {
    const float g = gate[i];
    out[i] = g / (1.0f + fast_exp_scalar(-g)) * up[i];
  }
}

void add_in_place(float* y, const float* x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] += x[i];
}

}  // namespace llm
