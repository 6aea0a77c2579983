#include "backends/cpu/matmul.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <utility>
#include <vector>

#include "backends/cpu/simd_target.h"
#include "backends/cpu/thread_pool.h"
#include "backends/cpu/vector_ops.h"

namespace llm {
namespace {

constexpr int kLanes = 8;

bool cpu_supports_avx2_fma() {
#if LLM_HAVE_X86
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

bool cpu_supports_avx512() {
#if LLM_HAVE_X86
  return cpu_supports_avx2_fma() && __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

SimdLevel best_level() {
  if (cpu_supports_avx512()) return SimdLevel::kAvx512;
  return cpu_supports_avx2_fma() ? SimdLevel::kAvx2Fma : SimdLevel::kPortable;
}

std::atomic<SimdLevel>& level_ref() {
  static std::atomic<SimdLevel> level{best_level()};
  return level;
}

// ---- Portable path: the same eight lanes and horizontal tree, multiply then add. ----

float hsum_portable(const float* v) {
  const float s0 = v[0] + v[4], s1 = v[1] + v[5], s2 = v[2] + v[6], s3 = v[3] + v[7];
  return (s0 + s2) + (s1 + s3);
}

float dot_portable(const float* a, const float* b, int64_t k) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes) {
    for (int l = 0; l < kLanes; ++l) acc[l] += a[i + l] * b[i + l];
  }
  for (int l = 0; i + l < k; ++l) acc[l] += a[i + l] * b[i + l];
  return hsum_portable(acc);
}

void tile_portable(const float* x, int64_t ldx, int rows, const float* w, int64_t ldw, int cols,
                   int64_t k, const float* bias, float* out, int64_t ldo) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      float v = dot_portable(x + r * ldx, w + c * ldw, k);
      if (bias) v += bias[c];
      out[r * ldo + c] = v;
    }
  }
}

#if LLM_HAVE_X86
// ---- AVX2 + FMA path. ----

LLM_AVX2 inline float hsum_avx2(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));  // l + (l+4)
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));                                         // 0+2, 1+3
  s = _mm_add_ss(s, _mm_movehdup_ps(s));                                          // (0+2)+(1+3)
  return _mm_cvtss_f32(s);
}

LLM_AVX2 inline __m256i tail_mask(int64_t remaining) {
  alignas(32) static const int32_t kMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1,
                                                0,  0,  0,  0,  0,  0,  0,  0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kMask + kLanes - remaining));
}

LLM_AVX2 float dot_avx2(const float* a, const float* b, int64_t k) {
  __m256 acc = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes) {
    acc = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i), acc);
  }
  if (i < k) {
    const __m256i m = tail_mask(k - i);
    acc = _mm256_fmadd_ps(_mm256_maskload_ps(a + i, m), _mm256_maskload_ps(b + i, m), acc);
  }
  return hsum_avx2(acc);
}

// An R x C tile of outputs; each output accumulates exactly as dot_avx2 does.
// When `ahead` is set, the tile also prefetches the C weight rows that follow its own (the next
// tile's), so a pass that streams weights from memory keeps more loads in flight.
template <int R, int C>
LLM_AVX2 void tile_avx2(const float* x, int64_t ldx, const float* w, int64_t ldw, int64_t k,
                        const float* bias, float* out, int64_t ldo, bool ahead) {
  __m256 acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  }
  int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes) {
    if (ahead && (i & 15) == 0) {
      for (int c = 0; c < C; ++c) {
        _mm_prefetch(reinterpret_cast<const char*>(w + (C + c) * ldw + i), _MM_HINT_T0);
      }
    }
    __m256 wv[C];
    for (int c = 0; c < C; ++c) wv[c] = _mm256_loadu_ps(w + c * ldw + i);
    for (int r = 0; r < R; ++r) {
      const __m256 xv = _mm256_loadu_ps(x + r * ldx + i);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm256_fmadd_ps(xv, wv[c], acc[r][c]);
    }
  }
  if (i < k) {
    const __m256i m = tail_mask(k - i);
    __m256 wv[C];
    for (int c = 0; c < C; ++c) wv[c] = _mm256_maskload_ps(w + c * ldw + i, m);
    for (int r = 0; r < R; ++r) {
      const __m256 xv = _mm256_maskload_ps(x + r * ldx + i, m);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm256_fmadd_ps(xv, wv[c], acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      float v = hsum_avx2(acc[r][c]);
      if (bias) v += bias[c];
      out[r * ldo + c] = v;
    }
  }
}

using TileFn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, const float*, float*,
                        int64_t, bool);
constexpr int kMaxR = 4, kMaxC = 8;

template <size_t... I>
constexpr std::array<TileFn, sizeof...(I)> make_tiles(std::index_sequence<I...>) {
  return {&tile_avx2<static_cast<int>(I / kMaxC) + 1, static_cast<int>(I % kMaxC) + 1>...};
}
constexpr auto kTiles = make_tiles(std::make_index_sequence<kMaxR * kMaxC>{});

// ---- AVX-512 path: sixteen lanes (lane l sums k = l, l+16, ...), then lanes l and l+8 are
// added and the eight sums reduced with the AVX2 tree. ----

constexpr int kLanes16 = 16;

LLM_AVX512 inline float hsum_avx512(__m512 v) {
  const __m256 lo = _mm512_castps512_ps256(v);
  const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
  return hsum_avx2(_mm256_add_ps(lo, hi));
}

// Eight horizontal sums at once, each in exactly hsum_avx512's order (lanes l and l+8, then l and
// l+4, then (0+2)+(1+3)): the same pairs are added, only several vectors' pairs per instruction.
LLM_AVX512 inline __m256 hsum8_avx512(const __m512* v) {
  __m512 h[4];  // h[j] = [lanes l + l+8 of v[2j] | of v[2j+1]]
  for (int j = 0; j < 4; ++j) {
    const __m512 lo = _mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 hi = _mm512_shuffle_f32x4(v[2 * j], v[2 * j + 1], _MM_SHUFFLE(3, 2, 3, 2));
    h[j] = _mm512_add_ps(lo, hi);
  }
  __m512 s[2];  // quarter q of s[i] = lanes l + l+4 of output 4i+q
  for (int i = 0; i < 2; ++i) {
    const __m512 a = _mm512_shuffle_f32x4(h[2 * i], h[2 * i + 1], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 b = _mm512_shuffle_f32x4(h[2 * i], h[2 * i + 1], _MM_SHUFFLE(3, 1, 3, 1));
    s[i] = _mm512_add_ps(a, b);
  }
  // Per quarter q: [s0 + s2, s1 + s3] of outputs q and 4+q, then their sum.
  const __m512 t = _mm512_add_ps(_mm512_shuffle_ps(s[0], s[1], _MM_SHUFFLE(1, 0, 1, 0)),
                                 _mm512_shuffle_ps(s[0], s[1], _MM_SHUFFLE(3, 2, 3, 2)));
  const __m512 r = _mm512_add_ps(_mm512_shuffle_ps(t, t, _MM_SHUFFLE(2, 0, 2, 0)),
                                 _mm512_shuffle_ps(t, t, _MM_SHUFFLE(3, 1, 3, 1)));
  // Quarter q of r holds [output q, output 4+q, ...]: gather outputs 0..7 in order.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 0, 0, 0, 0, 0, 0, 0, 0);
  return _mm512_castps512_ps256(_mm512_permutexvar_ps(order, r));
}

LLM_AVX512 inline __mmask16 tail_mask16(int64_t remaining) {
  return static_cast<__mmask16>((1u << remaining) - 1u);
}

LLM_AVX512 float dot_avx512(const float* a, const float* b, int64_t k) {
  __m512 acc = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + kLanes16 <= k; i += kLanes16) {
    acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc);
  }
  if (i < k) {
    const __mmask16 m = tail_mask16(k - i);
    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), acc);
  }
  return hsum_avx512(acc);
}

template <int R, int C>
LLM_AVX512 void tile_avx512(const float* x, int64_t ldx, const float* w, int64_t ldw, int64_t k,
                            const float* bias, float* out, int64_t ldo, bool ahead) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  }
  int64_t i = 0;
  for (; i + kLanes16 <= k; i += kLanes16) {
    if (ahead) {
      for (int c = 0; c < C; ++c) {
        _mm_prefetch(reinterpret_cast<const char*>(w + (C + c) * ldw + i), _MM_HINT_T0);
      }
    }
    __m512 wv[C];
    for (int c = 0; c < C; ++c) wv[c] = _mm512_loadu_ps(w + c * ldw + i);
    for (int r = 0; r < R; ++r) {
      const __m512 xv = _mm512_loadu_ps(x + r * ldx + i);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_fmadd_ps(xv, wv[c], acc[r][c]);
    }
  }
  if (i < k) {
    const __mmask16 m = tail_mask16(k - i);
    __m512 wv[C];
    for (int c = 0; c < C; ++c) wv[c] = _mm512_maskz_loadu_ps(m, w + c * ldw + i);
    for (int r = 0; r < R; ++r) {
      const __m512 xv = _mm512_maskz_loadu_ps(m, x + r * ldx + i);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_fmadd_ps(xv, wv[c], acc[r][c]);
    }
  }
  alignas(32) float sums[R * C];
  const __m512* flat = &acc[0][0];
  int o = 0;
  for (; o + 8 <= R * C; o += 8) _mm256_store_ps(sums + o, hsum8_avx512(flat + o));
  for (; o < R * C; ++o) sums[o] = hsum_avx512(flat[o]);
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      float v = sums[r * C + c];
      if (bias) v += bias[c];
      out[r * ldo + c] = v;
    }
  }
}

template <size_t... I>
constexpr std::array<TileFn, sizeof...(I)> make_tiles512(std::index_sequence<I...>) {
  return {&tile_avx512<static_cast<int>(I / kMaxC) + 1, static_cast<int>(I % kMaxC) + 1>...};
}
constexpr auto kTiles512 = make_tiles512(std::make_index_sequence<kMaxR * kMaxC>{});
#endif

// Computes rows [0, m) x columns [n0, n1) of one part.
void run_block(const float* x, int64_t m, int64_t k, const MatmulPart& p, int64_t n0, int64_t n1,
               int64_t row_block, SimdLevel level) {
  auto tile = [&](int64_t r0, int rows, int64_t c0, int cols) {
    const float* bias = p.bias ? p.bias + c0 : nullptr;
#if LLM_HAVE_X86
    if (level != SimdLevel::kPortable) {
      // The first row tile of a column tile is the one that pulls its weights from memory.
      // (Measured on the 2-core Zen 5: prefetching further ahead, into L2, or from every row tile
      // made batch-16 decode 2-28% slower.)
      const bool ahead = r0 == 0 && c0 + 2 * cols <= n1;
      const auto& table = level == SimdLevel::kAvx512 ? kTiles512 : kTiles;
      table[(rows - 1) * kMaxC + (cols - 1)](x + r0 * k, k, p.w + c0 * k, k, k, bias,
                                             p.out + r0 * p.ldo + c0, p.ldo, ahead);
      return;
    }
#endif
    tile_portable(x + r0 * k, k, rows, p.w + c0 * k, k, cols, k, bias, p.out + r0 * p.ldo + c0,
                  p.ldo);
  };
  // Multi-row tiles: 4 x 3 outputs in 16 AVX2 registers, 4 x 6 in 32 AVX-512 registers.
  const int64_t tile_cols = level == SimdLevel::kAvx512 ? 6 : 3;
  for (int64_t m0 = 0; m0 < m; m0 += row_block) {
    const int64_t m1 = std::min(m, m0 + row_block);
    if (m1 - m0 == 1) {  // a single row: wide tiles keep eight weight streams in flight
      for (int64_t c = n0; c < n1; c += 8) {
        tile(m0, 1, c, static_cast<int>(std::min<int64_t>(8, n1 - c)));
      }
      continue;
    }
    for (int64_t c = n0; c < n1; c += tile_cols) {
      const int cols = static_cast<int>(std::min<int64_t>(tile_cols, n1 - c));
      for (int64_t r = m0; r < m1; r += 4) {
        tile(r, static_cast<int>(std::min<int64_t>(4, m1 - r)), c, cols);
      }
    }
  }
}

int64_t round_block(int64_t target, int64_t multiple, int64_t lo, int64_t hi) {
  const int64_t v = std::clamp(target, lo, hi);
  return std::max(multiple, v / multiple * multiple);
}

}  // namespace

const char* simd_name(SimdLevel l) {
  switch (l) {
    case SimdLevel::kAvx512:
      return "Avx512";
    case SimdLevel::kAvx2Fma:
      return "Avx2Fma";
    case SimdLevel::kPortable:
      break;
  }
  return "Portable";
}

SimdLevel simd_level() { return level_ref().load(std::memory_order_relaxed); }

void force_simd_level(SimdLevel l) {
  if (l == SimdLevel::kAvx512 && !cpu_supports_avx512()) l = SimdLevel::kAvx2Fma;
  if (l == SimdLevel::kAvx2Fma && !cpu_supports_avx2_fma()) l = SimdLevel::kPortable;
  level_ref().store(l, std::memory_order_relaxed);
}

float dot(const float* a, const float* b, int64_t k) {
#if LLM_HAVE_X86
  const SimdLevel level = simd_level();
  if (level == SimdLevel::kAvx512) return dot_avx512(a, b, k);
  if (level == SimdLevel::kAvx2Fma) return dot_avx2(a, b, k);
#endif
  return dot_portable(a, b, k);
}

namespace {

// The blocking of a product of m rows over k: columns per task and rows per row block. About
// 256 KiB of weights per task and of activations per row block (L2-sized), so a task reads its
// weight rows from memory once and reuses them across the row block.
struct Blocking {
  int64_t cols, row_block;
};

Blocking blocking_for(int64_t k) {
  const int64_t kk = std::max<int64_t>(k, 1);
  return {round_block(65536 / kk, 24, 24, 480), round_block(65536 / kk, 4, 4, 256)};
}

int64_t tasks_of(int64_t n, int64_t cols) { return (n + cols - 1) / cols; }

// Runs fn(task) for tasks [0, n): on the pool when there is enough work to share.
template <typename Fn>
void run_tasks(ThreadPool* pool, int64_t n, double flops, Fn& fn) {
  if (pool == nullptr || n < 2 || flops < 2e5) {
    for (int64_t t = 0; t < n; ++t) fn(t);
    return;
  }
  pool->run(n, fn);
}

}  // namespace

void matmul(ThreadPool* pool, const float* x, int64_t m, int64_t k,
            std::span<const MatmulPart> parts) {
  if (m <= 0) return;
  const SimdLevel level = simd_level();
  const Blocking b = blocking_for(k);
  // Task t is the t-th column block, counting the parts' blocks one part after the other (found
  // by a walk over the few parts: no task list is built).
  int64_t total = 0;
  for (const MatmulPart& p : parts) total += tasks_of(p.n, b.cols);
  auto run_task = [&](int64_t t) {
    size_t p = 0;
    for (; t >= tasks_of(parts[p].n, b.cols); ++p) t -= tasks_of(parts[p].n, b.cols);
    const int64_t n0 = t * b.cols;
    run_block(x, m, k, parts[p], n0, std::min(parts[p].n, n0 + b.cols), b.row_block, level);
  };
  const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(k) *
                       static_cast<double>(total) * static_cast<double>(b.cols);
  run_tasks(pool, total, flops, run_task);
}

void matmul_swiglu(ThreadPool* pool, const float* x, int64_t m, int64_t k, const float* gate,
                   const float* up, int64_t n, float* out, int64_t ldo) {
  if (m <= 0 || n <= 0) return;
  const SimdLevel level = simd_level();
  const Blocking b = blocking_for(k);
  auto run_task = [&](int64_t t) {
    thread_local std::vector<float> up_block;
    const int64_t n0 = t * b.cols, cols = std::min(n, n0 + b.cols) - n0;
    up_block.resize(static_cast<size_t>(m * cols));
    const MatmulPart g{gate + n0 * k, cols, nullptr, out + n0, ldo};
    const MatmulPart u{up + n0 * k, cols, nullptr, up_block.data(), cols};
    run_block(x, m, k, g, 0, cols, b.row_block, level);
    run_block(x, m, k, u, 0, cols, b.row_block, level);
    for (int64_t r = 0; r < m; ++r) {
      float* o = out + r * ldo + n0;
      silu_mul(o, up_block.data() + r * cols, cols, o);
    }
  };
  const int64_t total = tasks_of(n, b.cols);
  const double flops = 4.0 * static_cast<double>(m) * static_cast<double>(k) *
                       static_cast<double>(total) * static_cast<double>(b.cols);
  run_tasks(pool, total, flops, run_task);
}

}  // namespace llm
