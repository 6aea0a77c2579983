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

// Cache lines a tile prefetches into L2 while it computes, spread evenly over its k steps: a
// later weight panel of a multi-row product, so that the panel is in cache when its turn comes.
struct PanelPrefetch {
  const char* p = nullptr;
  int64_t lines = 0;
};

// An R x C tile of outputs; each output accumulates exactly as dot_avx2 does.
// When `ahead` is set, the tile also prefetches the C weight rows that follow its own (the next
// tile's), so a pass that streams weights from memory keeps more loads in flight.
template <int R, int C>
LLM_AVX2 void tile_avx2(const float* x, int64_t ldx, const float* w, int64_t ldw, int64_t k,
                        const float* bias, float* out, int64_t ldo, bool ahead, PanelPrefetch pf) {
  __m256 acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  }
  const int64_t pf_per_step = (pf.lines + k / kLanes) / (k / kLanes + 1);
  int64_t i = 0;
  for (; i + kLanes <= k; i += kLanes) {
    for (int64_t q = 0; q < pf_per_step && pf.lines > 0; ++q, --pf.lines, pf.p += 64) {
      _mm_prefetch(pf.p, _MM_HINT_T1);
    }
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
                        int64_t, bool, PanelPrefetch);
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
                            const float* bias, float* out, int64_t ldo, bool ahead,
                            PanelPrefetch pf) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  }
  const int64_t pf_per_step = (pf.lines + k / kLanes16) / (k / kLanes16 + 1);
  int64_t i = 0;
  for (; i + kLanes16 <= k; i += kLanes16) {
    for (int64_t q = 0; q < pf_per_step && pf.lines > 0; ++q, --pf.lines, pf.p += 64) {
      _mm_prefetch(pf.p, _MM_HINT_T1);
    }
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
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      float v = hsum_avx512(acc[r][c]);
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
  auto tile = [&](int64_t r0, int rows, int64_t c0, int cols, PanelPrefetch pf) {
    const float* bias = p.bias ? p.bias + c0 : nullptr;
#if LLM_HAVE_X86
    if (level != SimdLevel::kPortable) {
      // A single row's tile is the one that pulls its weights from memory.
      const bool ahead = rows == 1 && r0 == 0 && c0 + 2 * cols <= n1;
      const auto& table = level == SimdLevel::kAvx512 ? kTiles512 : kTiles;
      table[(rows - 1) * kMaxC + (cols - 1)](x + r0 * k, k, p.w + c0 * k, k, k, bias,
                                             p.out + r0 * p.ldo + c0, p.ldo, ahead, pf);
      return;
    }
#endif
    tile_portable(x + r0 * k, k, rows, p.w + c0 * k, k, cols, k, bias, p.out + r0 * p.ldo + c0,
                  p.ldo);
  };
  // Multi-row tiles: 4 x 3 outputs in 16 AVX2 registers, 4 x 6 in 32 AVX-512 registers.
  const int64_t tile_cols = level == SimdLevel::kAvx512 ? 6 : 3;
  // A multi-row pass streams each weight panel (tile_cols rows of w) from memory once and applies
  // it to every row tile; while the row tiles of one panel compute, they prefetch the panel
  // kPanelsAhead further into L2, shared out among them.
  constexpr int64_t kPanelsAhead = 2;
  for (int64_t m0 = 0; m0 < m; m0 += row_block) {
    const int64_t m1 = std::min(m, m0 + row_block);
    if (m1 - m0 == 1) {  // a single row: wide tiles keep eight weight streams in flight
      for (int64_t c = n0; c < n1; c += 8) {
        tile(m0, 1, c, static_cast<int>(std::min<int64_t>(8, n1 - c)), PanelPrefetch{});
      }
      continue;
    }
    const int64_t row_tiles = (m1 - m0 + 3) / 4;
    for (int64_t c = n0; c < n1; c += tile_cols) {
      const int cols = static_cast<int>(std::min<int64_t>(tile_cols, n1 - c));
      // Only the first row block reads the weights from memory; later ones find them in L2.
      const int64_t ahead_first = c + kPanelsAhead * tile_cols;
      const int64_t ahead_end = m0 == 0 ? std::min(n1, ahead_first + tile_cols) : ahead_first;
      const int64_t ahead_lines =
          ahead_end > ahead_first ? ((ahead_end - ahead_first) * k * 4 + 63) / 64 : 0;
      const int64_t per_tile = (ahead_lines + row_tiles - 1) / row_tiles;
      int64_t t = 0;
      for (int64_t r = m0; r < m1; r += 4, ++t) {
        PanelPrefetch pf;
        const int64_t first = std::min(ahead_lines, t * per_tile);
        pf.lines = std::min(ahead_lines, first + per_tile) - first;
        if (pf.lines > 0) {
          pf.p = reinterpret_cast<const char*>(p.w + ahead_first * k) + 64 * first;
        }
        tile(r, static_cast<int>(std::min<int64_t>(4, m1 - r)), c, cols, pf);
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
