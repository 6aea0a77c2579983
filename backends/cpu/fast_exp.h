// exp(x) for the softmax and SiLU kernels, vectorised: Cephes' expf (x = n ln2 + r with ln2 split
// in two, a degree-5 polynomial in r, then scaling by 2^n), about 1 ulp from std::exp over the
// whole float range. One AVX-512 register, one AVX2 register or one float at a time; each is a
// fixed sequence of operations, so a value's result never depends on its neighbours (the three
// paths' bits may differ from each other: the vector ones fuse multiply-adds). Inputs below
// -87.3 give 0 and above 88 give exp(88); NaN is not expected.
// Thread-safety: pure functions.
#pragma once

#include <cmath>
#include <cstdint>

#include "backends/cpu/simd_target.h"

namespace llm {
namespace fast_exp_constants {
inline constexpr float kLo = -87.33654f, kHi = 88.0f;
inline constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f,
                       kLn2Lo = -2.12194440e-4f;
inline constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f,
                       kP3 = 4.1665795894e-2f, kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;
}  // namespace fast_exp_constants

// The portable path (separate multiplies and adds).
inline float fast_exp_scalar(float x) {
  using namespace fast_exp_constants;
  if (x < kLo) return 0.0f;
  if (x > kHi) x = kHi;
  const float n = std::nearbyint(x * kLog2e);
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = kP0 * r + kP1;
  p = p * r + kP2;
  p = p * r + kP3;
  p = p * r + kP4;
  p = p * r + kP5;
  const float y = p * (r * r) + r + 1.0f;
  return std::ldexp(y, static_cast<int>(n));
}

#if LLM_HAVE_X86
LLM_AVX2 inline __m256 fast_exp_avx2(__m256 x) {
  using namespace fast_exp_constants;
  const __m256 below = _mm256_cmp_ps(x, _mm256_set1_ps(kLo), _CMP_LT_OQ);
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(kLo)), _mm256_set1_ps(kHi));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(kP0), r, _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
  __m256 y = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), r);
  y = _mm256_add_ps(y, _mm256_set1_ps(1.0f));
  // 2^n for n in [-126, 127]: the exponent field of a float.
  const __m256i e =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  y = _mm256_mul_ps(y, _mm256_castsi256_ps(e));
  return _mm256_andnot_ps(below, y);
}

LLM_AVX512 inline __m512 fast_exp_avx512(__m512 x) {
  using namespace fast_exp_constants;
  const __mmask16 below = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kLo), _CMP_LT_OQ);
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(kLo)), _mm512_set1_ps(kHi));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(kLog2e)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(kP0), r, _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
  __m512 y = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r);
  y = _mm512_add_ps(y, _mm512_set1_ps(1.0f));
  y = _mm512_scalef_ps(y, n);
  return _mm512_maskz_mov_ps(static_cast<__mmask16>(~below), y);
}
#endif

}  // namespace llm
