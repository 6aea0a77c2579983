#include "backends/cpu/attention.h"

#include <algorithm>
#include <cmath>

#include "backends/cpu/fast_exp.h"
#include "backends/cpu/matmul.h"
#include "backends/cpu/simd_target.h"
#include "core/ceil_div.h"

namespace llm {
namespace {

// Position j's score is sum_i q[i] * k_j[i] in eight partial sums (i mod 8, each in increasing i)
// added as ((0+1)+(2+3))+((4+5)+(6+7)), times scale: one fixed order per (q, k_j), computed for a
// vector of slots at once from the block's transposed keys.
constexpr int kParts = 8;

float tree8(const float* a) {
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

// step(i, i mod 8) for i in [0, d), eight at a time with the part a constant, so that a SIMD
// kernel's eight partial sums stay registers (a part only known at run time keeps them in
// memory). Inlined into the kernel, whose target the step shares.
template <typename Step>
[[gnu::always_inline]] inline void for_each_dim_by_part(int64_t d, Step&& step) {
  int64_t i = 0;
  for (; i + kParts <= d; i += kParts) {
#pragma GCC unroll 8
    for (int u = 0; u < kParts; ++u) step(i + u, u);
  }
#pragma GCC unroll 8
  for (int u = 0; u < kParts; ++u) {
    if (i + u < d) step(i + u, u);
  }
}

void scores_portable(const float* q, const float* kt, int64_t d, int64_t bs, int64_t slots,
                     float scale, float* s) {
  for (int64_t j = 0; j < slots; ++j) {
    float acc[kParts] = {};
    for (int64_t i = 0; i < d; ++i) acc[i % kParts] += q[i] * kt[i * bs + j];
    s[j] = tree8(acc) * scale;
  }
}

// The sum of exp(s[j] - max) over j in eight lanes (lane j mod 8, increasing j), then the tree.
float exp_sum_portable(float* s, int64_t n, float max) {
  float acc[kParts] = {};
  for (int64_t j = 0; j < n; ++j) {
    s[j] = fast_exp_scalar(s[j] - max);
    acc[j % kParts] += s[j];
  }
  return tree8(acc);
}

// out = (sum over even j of p_j v_j + sum over odd j of p_j v_j) * inv, each sum in increasing j.
template <typename RowOf>
void weighted_sum_portable(const float* p, int64_t n, int64_t d, RowOf row_of, float inv,
                           float* out) {
  for (int64_t i = 0; i < d; ++i) {
    float even = 0.0f, odd = 0.0f;
    for (int64_t j = 0; j < n; ++j) {
      const float t = p[j] * row_of(j)[i];
      if (j % 2 == 0) {
        even += t;
      } else {
        odd += t;
      }
    }
    out[i] = (even + odd) * inv;
  }
}

#if LLM_HAVE_X86
LLM_AVX512 inline __mmask16 first16(int64_t n) {
  return n >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << n) - 1u);
}

LLM_AVX512 float max_avx512(const float* s, int64_t n) {
  __m512 mx = _mm512_set1_ps(-INFINITY);
  for (int64_t j = 0; j < n; j += 16) {
    mx = _mm512_mask_max_ps(mx, first16(n - j), mx, _mm512_maskz_loadu_ps(first16(n - j), s + j));
  }
  return _mm512_reduce_max_ps(mx);
}

// Sixteen lanes (lane j mod 16), then lanes l and l+8 added and the eight reduced by tree8's order
// of pairs ((0+4)+(2+6))+((1+5)+(3+7)) as matmul's horizontal sum does.
LLM_AVX512 float exp_sum_avx512(float* s, int64_t n, float max) {
  __m512 acc = _mm512_setzero_ps();
  const __m512 mx = _mm512_set1_ps(max);
  for (int64_t j = 0; j < n; j += 16) {
    const __mmask16 m = first16(n - j);
    const __m512 e = fast_exp_avx512(_mm512_sub_ps(_mm512_maskz_loadu_ps(m, s + j), mx));
    _mm512_mask_storeu_ps(s + j, m, e);
    acc = _mm512_add_ps(acc, _mm512_maskz_mov_ps(m, e));
  }
  alignas(64) float l[16];
  _mm512_store_ps(l, acc);
  float h[8];
  for (int i = 0; i < 8; ++i) h[i] = l[i] + l[i + 8];
  return ((h[0] + h[4]) + (h[2] + h[6])) + ((h[1] + h[5]) + (h[3] + h[7]));
}

// AVX-512 attention of H query heads over the same KV head at once (grouped-query attention):
// each key and value row is loaded once for all H, and the heads' chains are independent. A
// head's arithmetic does not depend on H (the order is the header's).
// Scores: sixteen slots at a time, the head dimension by for_each_dim_by_part. `next`: the next
// block's keys (or null), prefetched into L1 while this block's are used: a block is its own 4 KiB
// run of the cache, which the hardware prefetcher does not cross into. `values`: this block's
// values (or null), prefetched into L2 for the weighted sum that follows the scores (decode
// attention over 16 sequences of 129 tokens, KV from memory: 1.15x on the 2-core Zen 5).
template <int H>
LLM_AVX512 void scores_heads_avx512(const float* q, const float* kt, int64_t d, int64_t bs,
                                    int64_t slots, float scale, float* s, int64_t s_stride,
                                    const float* next, const float* values) {
  for (int64_t off = 0; (next || values) && off < d * bs; off += 16) {
    if (next) _mm_prefetch(reinterpret_cast<const char*>(next + off), _MM_HINT_T0);
    if (values) _mm_prefetch(reinterpret_cast<const char*>(values + off), _MM_HINT_T1);
  }
  for (int64_t c = 0; c < slots; c += 16) {
    const __mmask16 m = first16(slots - c);
    __m512 acc[H][kParts];
    for (int h = 0; h < H; ++h) {
      for (__m512& a : acc[h]) a = _mm512_setzero_ps();
    }
    for_each_dim_by_part(d, [&](int64_t i, int u) LLM_AVX512 {
      const __m512 kv = _mm512_maskz_loadu_ps(m, kt + i * bs + c);
      for (int h = 0; h < H; ++h) {
        acc[h][u] = _mm512_fmadd_ps(_mm512_set1_ps(q[h * d + i]), kv, acc[h][u]);
      }
    });
    for (int h = 0; h < H; ++h) {
      const __m512* a = acc[h];
      const __m512 t =
          _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a[0], a[1]), _mm512_add_ps(a[2], a[3])),
                        _mm512_add_ps(_mm512_add_ps(a[4], a[5]), _mm512_add_ps(a[6], a[7])));
      _mm512_mask_storeu_ps(s + h * s_stride + c, m, _mm512_mul_ps(t, _mm512_set1_ps(scale)));
    }
  }
}

// The weighted sum: 64 columns at a time, eight independent chains per head (even and odd
// positions of four vectors). The rows are walked block by block (a block's rows are
// consecutive), and with `prefetch` each block's values are prefetched when the walk enters the
// block before it.
template <int H, typename BlockOf>
LLM_AVX512 void weighted_sum_heads_avx512(const float* p, int64_t p_stride, int64_t n, int64_t d,
                                          int64_t bs, BlockOf block_of, const float* inv,
                                          float* out, bool prefetch) {
  constexpr int kVecs = 4;
  const int64_t blocks = ceil_div(n, bs);
  for (int64_t c = 0; c < d; c += 16 * kVecs) {
    __mmask16 m[kVecs];
    for (int v = 0; v < kVecs; ++v) {
      m[v] = d - c > 16 * v ? first16(d - c - 16 * v) : __mmask16{0};
    }
    __m512 e[H][kVecs], o[H][kVecs];
    for (int h = 0; h < H; ++h) {
      for (int v = 0; v < kVecs; ++v) e[h][v] = o[h][v] = _mm512_setzero_ps();
    }
    // The walk: row j is `slot` of `block`, at base + slot * d.
    int64_t block = 0, slot = 0;
    const float* base = block_of(0);
    auto enter_block = [&] {
      if (prefetch && c == 0 && block + 1 < blocks) {
        const char* ahead = reinterpret_cast<const char*>(block_of(block + 1));
        for (int64_t off = 0; off < bs * d * 4; off += 64) _mm_prefetch(ahead + off, _MM_HINT_T0);
      }
    };
    auto next_row = [&] {
      const float* row = base + slot * d + c;
      if (++slot == bs) {
        slot = 0;
        if (++block < blocks) {
          base = block_of(block);
          enter_block();
        }
      }
      return row;
    };
    enter_block();
    int64_t j = 0;
    for (; j + 2 <= n; j += 2) {
      const float* va = next_row();
      const float* vb = next_row();
      for (int v = 0; v < kVecs; ++v) {
        const __m512 a = _mm512_maskz_loadu_ps(m[v], va + 16 * v);
        const __m512 b = _mm512_maskz_loadu_ps(m[v], vb + 16 * v);
        for (int h = 0; h < H; ++h) {
          e[h][v] = _mm512_fmadd_ps(_mm512_set1_ps(p[h * p_stride + j]), a, e[h][v]);
          o[h][v] = _mm512_fmadd_ps(_mm512_set1_ps(p[h * p_stride + j + 1]), b, o[h][v]);
        }
      }
    }
    if (j < n) {
      const float* va = next_row();
      for (int v = 0; v < kVecs; ++v) {
        const __m512 a = _mm512_maskz_loadu_ps(m[v], va + 16 * v);
        for (int h = 0; h < H; ++h) {
          e[h][v] = _mm512_fmadd_ps(_mm512_set1_ps(p[h * p_stride + j]), a, e[h][v]);
        }
      }
    }
    for (int h = 0; h < H; ++h) {
      const __m512 vi = _mm512_set1_ps(inv[h]);
      for (int v = 0; v < kVecs; ++v) {
        if (m[v]) {
          _mm512_mask_storeu_ps(out + h * d + c + 16 * v, m[v],
                                _mm512_mul_ps(_mm512_add_ps(e[h][v], o[h][v]), vi));
        }
      }
    }
  }
}

LLM_AVX2 inline __m256i first8(int64_t n) {
  alignas(32) static const int32_t kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                0,  0,  0,  0,  0,  0,  0,  0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + 8 - std::min<int64_t>(n, 8)));
}

LLM_AVX2 void scores_avx2(const float* q, const float* kt, int64_t d, int64_t bs, int64_t slots,
                          float scale, float* s) {
  for (int64_t c = 0; c < slots; c += 8) {
    const __m256i m = first8(slots - c);
    __m256 acc[kParts];
    for (__m256& a : acc) a = _mm256_setzero_ps();
    for_each_dim_by_part(d, [&](int64_t i, int u) LLM_AVX2 {
      acc[u] =
          _mm256_fmadd_ps(_mm256_set1_ps(q[i]), _mm256_maskload_ps(kt + i * bs + c, m), acc[u]);
    });
    const __m256 t =
        _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3])),
                      _mm256_add_ps(_mm256_add_ps(acc[4], acc[5]), _mm256_add_ps(acc[6], acc[7])));
    _mm256_maskstore_ps(s + c, m, _mm256_mul_ps(t, _mm256_set1_ps(scale)));
  }
}

LLM_AVX2 float exp_sum_avx2(float* s, int64_t n, float max) {
  __m256 acc = _mm256_setzero_ps();
  const __m256 mx = _mm256_set1_ps(max);
  for (int64_t j = 0; j < n; j += 8) {
    const __m256i m = first8(n - j);
    const __m256 e = fast_exp_avx2(_mm256_sub_ps(_mm256_maskload_ps(s + j, m), mx));
    _mm256_maskstore_ps(s + j, m, e);
    acc = _mm256_add_ps(acc, _mm256_and_ps(e, _mm256_castsi256_ps(m)));
  }
  alignas(32) float l[8];
  _mm256_store_ps(l, acc);
  return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]));
}

template <typename RowOf>
LLM_AVX2 void weighted_sum_avx2(const float* p, int64_t n, int64_t d, RowOf row_of, float inv,
                                float* out) {
  for (int64_t c = 0; c < d; c += 16) {
    const __m256i m0 = first8(d - c), m1 = first8(std::max<int64_t>(0, d - c - 8));
    __m256 e0 = _mm256_setzero_ps(), e1 = _mm256_setzero_ps(), o0 = _mm256_setzero_ps(),
           o1 = _mm256_setzero_ps();
    int64_t j = 0;
    for (; j + 2 <= n; j += 2) {
      const float* va = row_of(j) + c;
      const float* vb = row_of(j + 1) + c;
      const __m256 pa = _mm256_set1_ps(p[j]), pb = _mm256_set1_ps(p[j + 1]);
      e0 = _mm256_fmadd_ps(pa, _mm256_maskload_ps(va, m0), e0);
      e1 = _mm256_fmadd_ps(pa, _mm256_maskload_ps(va + 8, m1), e1);
      o0 = _mm256_fmadd_ps(pb, _mm256_maskload_ps(vb, m0), o0);
      o1 = _mm256_fmadd_ps(pb, _mm256_maskload_ps(vb + 8, m1), o1);
    }
    if (j < n) {
      const float* va = row_of(j) + c;
      const __m256 pa = _mm256_set1_ps(p[j]);
      e0 = _mm256_fmadd_ps(pa, _mm256_maskload_ps(va, m0), e0);
      e1 = _mm256_fmadd_ps(pa, _mm256_maskload_ps(va + 8, m1), e1);
    }
    const __m256 vi = _mm256_set1_ps(inv);
    _mm256_maskstore_ps(out + c, m0, _mm256_mul_ps(_mm256_add_ps(e0, o0), vi));
    _mm256_maskstore_ps(out + c + 8, m1, _mm256_mul_ps(_mm256_add_ps(e1, o1), vi));
  }
}
#endif

}  // namespace

void paged_attention(const float* q, int64_t heads, const PagedKvCache& kv, int64_t layer,
                     int64_t kv_head, std::span<const int32_t> block_table, int64_t pos,
                     float scale, std::vector<float>& scores, float* out, bool prefetch) {
  const int64_t n = pos + 1, d = kv.head_dim, bs = kv.block_size;
  const int64_t blocks = ceil_div(n, bs), stride = blocks * bs;
  // Block b's keys and values start at the same offset of k and v.
  auto offset = [&](int64_t b) {
    return kv.head_offset(layer, block_table[static_cast<size_t>(b)], kv_head);
  };
  auto keys = [&](int64_t b) { return kv.k.get() + offset(b); };
  auto values = [&](int64_t b) { return kv.v.get() + offset(b); };
  auto row_of = [&](int64_t j) {
    return kv.v.get() +
           kv.v_offset(layer, block_table[static_cast<size_t>(j / bs)], kv_head, j % bs);
  };
  const SimdLevel level = simd_level();
#if LLM_HAVE_X86
  if (level == SimdLevel::kAvx512) {
    constexpr int64_t kMaxHeads = 3;  // 24 score accumulators
    scores.resize(static_cast<size_t>(std::min(heads, kMaxHeads) * stride));
    for (int64_t h0 = 0; h0 < heads; h0 += kMaxHeads) {
      const int64_t hn = std::min(kMaxHeads, heads - h0);
      const float* qh = q + h0 * d;
      float* s = scores.data();
      for (int64_t b = 0; b < blocks; ++b) {
        const int64_t slots = std::min(bs, n - b * bs);
        const float* next = prefetch && b + 1 < blocks ? keys(b + 1) : nullptr;
        const float* vals = prefetch && h0 == 0 ? values(b) : nullptr;
        float* sb = s + b * bs;
        if (hn == 3)
          scores_heads_avx512<3>(qh, keys(b), d, bs, slots, scale, sb, stride, next, vals);
        if (hn == 2)
          scores_heads_avx512<2>(qh, keys(b), d, bs, slots, scale, sb, stride, next, vals);
        if (hn == 1)
          scores_heads_avx512<1>(qh, keys(b), d, bs, slots, scale, sb, stride, next, vals);
      }
      float inv[kMaxHeads];
      for (int64_t h = 0; h < hn; ++h) {
        float* sh = s + h * stride;
        inv[h] = 1.0f / exp_sum_avx512(sh, n, max_avx512(sh, n));
      }
      float* oh = out + h0 * d;
      if (hn == 3) weighted_sum_heads_avx512<3>(s, stride, n, d, bs, values, inv, oh, prefetch);
      if (hn == 2) weighted_sum_heads_avx512<2>(s, stride, n, d, bs, values, inv, oh, prefetch);
      if (hn == 1) weighted_sum_heads_avx512<1>(s, stride, n, d, bs, values, inv, oh, prefetch);
    }
    return;
  }
#endif
  scores.resize(static_cast<size_t>(stride));
  float* s = scores.data();
  for (int64_t h = 0; h < heads; ++h) {
    const float* qh = q + h * d;
    float* oh = out + h * d;
#if LLM_HAVE_X86
    if (level == SimdLevel::kAvx2Fma) {
      for (int64_t b = 0; b < blocks; ++b) {
        scores_avx2(qh, keys(b), d, bs, std::min(bs, n - b * bs), scale, s + b * bs);
      }
      const float sum = exp_sum_avx2(s, n, *std::max_element(s, s + n));
      weighted_sum_avx2(s, n, d, row_of, 1.0f / sum, oh);
      continue;
    }
#endif
    for (int64_t b = 0; b < blocks; ++b) {
      scores_portable(qh, keys(b), d, bs, std::min(bs, n - b * bs), scale, s + b * bs);
    }
    const float sum = exp_sum_portable(s, n, *std::max_element(s, s + n));
    weighted_sum_portable(s, n, d, row_of, 1.0f / sum, oh);
  }
}

void paged_attention(const float* q, const PagedKvCache& kv, int64_t layer, int64_t kv_head,
                     std::span<const int32_t> block_table, int64_t pos, float scale,
                     std::vector<float>& scores, float* out) {
  paged_attention(q, 1, kv, layer, kv_head, block_table, pos, scale, scores, out, true);
}

}  // namespace llm
