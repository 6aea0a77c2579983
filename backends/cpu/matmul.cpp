#include "backends/cpu/matmul.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <utility>
#include <vector>

#include "backends/cpu/simd_target.h"
#include "backends/cpu/thread_pool.h"
#include "backends/cpu/vector_ops.h"
#include "core/ceil_div.h"

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

// ---- dot(): eight lanes and a fixed horizontal tree (sixteen lanes first on AVX-512). ----

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

#if LLM_HAVE_X86
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

LLM_AVX512 inline float hsum_avx512(__m512 v) {
  const __m256 lo = _mm512_castps512_ps256(v);
  const __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1));
  return hsum_avx2(_mm256_add_ps(lo, hi));
}

LLM_AVX512 float dot_avx512(const float* a, const float* b, int64_t k) {
  __m512 acc = _mm512_setzero_ps();
  int64_t i = 0;
  for (; i + 16 <= k; i += 16) {
    acc = _mm512_fmadd_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i), acc);
  }
  if (i < k) {
    const __mmask16 m = static_cast<__mmask16>((1u << (k - i)) - 1u);
    acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + i), _mm512_maskz_loadu_ps(m, b + i), acc);
  }
  return hsum_avx512(acc);
}
#endif

// ---- The matmul's tiles. A tile computes MR rows x NP panels (NP * 16 columns) over the whole
// of k, each output one FMA chain in increasing k held in a register; `cols` is the number of
// valid columns in the tile's last panel (the rest are padding and are not stored). ----

struct TileArgs {
  const float* x;  // the tile's first row
  int64_t ldx;
  const float* panel;  // the tile's first panel
  int64_t k;
  const float* bias;  // at the tile's first column, or null
  float* out;         // at the tile's first row and column
  int64_t ldo;
  int cols;  // valid columns of the last panel, 1..16
};

void tile_portable(const TileArgs& a, int rows, int panels) {
  const int64_t stride = a.k * kPanelWidth;
  for (int r = 0; r < rows; ++r) {
    for (int p = 0; p < panels; ++p) {
      const int cols = p == panels - 1 ? a.cols : static_cast<int>(kPanelWidth);
      const float* w = a.panel + p * stride;
      for (int j = 0; j < cols; ++j) {
        float acc = 0.0f;
        for (int64_t i = 0; i < a.k; ++i)
          acc = std::fma(a.x[r * a.ldx + i], w[i * kPanelWidth + j], acc);
        if (a.bias) acc += a.bias[p * kPanelWidth + j];
        a.out[r * a.ldo + p * kPanelWidth + j] = acc;
      }
    }
  }
}

#if LLM_HAVE_X86
// AVX2: a panel is two vectors of eight columns; up to six rows of one panel (12 accumulators).
template <int MR>
LLM_AVX2 void tile_avx2(const TileArgs& a) {
  __m256 acc[MR][2];
  for (int r = 0; r < MR; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  const float* w = a.panel;
  for (int64_t i = 0; i < a.k; ++i, w += kPanelWidth) {
    const __m256 w0 = _mm256_load_ps(w), w1 = _mm256_load_ps(w + 8);
    for (int r = 0; r < MR; ++r) {
      const __m256 xv = _mm256_broadcast_ss(a.x + r * a.ldx + i);
      acc[r][0] = _mm256_fmadd_ps(xv, w0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(xv, w1, acc[r][1]);
    }
  }
  for (int h = 0; h < 2; ++h) {
    const int valid = std::clamp(a.cols - 8 * h, 0, 8);
    if (valid == 0) continue;
    const __m256i m = tail_mask(valid);
    const __m256 b = a.bias ? _mm256_maskload_ps(a.bias + 8 * h, m) : _mm256_setzero_ps();
    for (int r = 0; r < MR; ++r) {
      const __m256 v = a.bias ? _mm256_add_ps(acc[r][h], b) : acc[r][h];
      _mm256_maskstore_ps(a.out + r * a.ldo + 8 * h, m, v);
    }
  }
}

// AVX-512: MR rows x NP panels in MR * NP accumulators (at most 24, and NP weight vectors).
// `ahead` prefetches each panel kAheadLines cache lines (= k rows) ahead, for weights streamed
// from memory.
// (Measured on the 2-core Zen 5, batch-16 decode matmuls: 32 lines 15.3 ms, 128 lines 13.0 ms,
// 256 the same; prefetching into L2 only was slower.)
// KMajorX: x is the k-major copy of the rows (kmajor_rows below): row r's value at k index i is at
// x[i * a.ldx + r] (ldx is then the number of rows), so a k step's broadcasts come from one cache
// line. Row-major x at a stride that is a multiple of 4 KiB (k = 2048: 8 KiB) puts every row's
// current line in the same L1 set, and 16 rows overflow its 12 ways: down_proj's batch-16
// product ran at 187 GFLOP/s against 336 for k = 768 (measured on the 2-core Zen 5).
constexpr int64_t kAheadLines = 128;

template <int MR, int NP, bool KMajorX>
LLM_AVX512 void tile_avx512(const TileArgs& a, bool ahead) {
  __m512 acc[MR][NP];
  for (int r = 0; r < MR; ++r) {
    for (int p = 0; p < NP; ++p) acc[r][p] = _mm512_setzero_ps();
  }
  const int64_t stride = a.k * kPanelWidth;
  const int64_t row_step = KMajorX ? 1 : a.ldx;
  const int64_t k_step = KMajorX ? a.ldx : 1;
  const float* w = a.panel;
  const float* x = a.x;
  if (ahead) {
    for (int64_t i = 0; i < a.k; ++i, w += kPanelWidth, x += k_step) {
      __m512 wv[NP];
      for (int p = 0; p < NP; ++p) {
        wv[p] = _mm512_load_ps(w + p * stride);
        _mm_prefetch(reinterpret_cast<const char*>(w + p * stride + kAheadLines * kPanelWidth),
                     _MM_HINT_T0);
      }
      for (int r = 0; r < MR; ++r) {
        const __m512 xv = _mm512_set1_ps(x[r * row_step]);
        for (int p = 0; p < NP; ++p) acc[r][p] = _mm512_fmadd_ps(xv, wv[p], acc[r][p]);
      }
    }
  } else {
    for (int64_t i = 0; i < a.k; ++i, w += kPanelWidth, x += k_step) {
      __m512 wv[NP];
      for (int p = 0; p < NP; ++p) wv[p] = _mm512_load_ps(w + p * stride);
      for (int r = 0; r < MR; ++r) {
        const __m512 xv = _mm512_set1_ps(x[r * row_step]);
        for (int p = 0; p < NP; ++p) acc[r][p] = _mm512_fmadd_ps(xv, wv[p], acc[r][p]);
      }
    }
  }
  for (int p = 0; p < NP; ++p) {
    const __mmask16 m = p == NP - 1 ? static_cast<__mmask16>((1u << a.cols) - 1u) : 0xffff;
    const __m512 b =
        a.bias ? _mm512_maskz_loadu_ps(m, a.bias + p * kPanelWidth) : _mm512_setzero_ps();
    for (int r = 0; r < MR; ++r) {
      const __m512 v = a.bias ? _mm512_add_ps(acc[r][p], b) : acc[r][p];
      _mm512_mask_storeu_ps(a.out + r * a.ldo + p * kPanelWidth, m, v);
    }
  }
}
#endif

// The panels an AVX-512 tile of MR rows takes at once: as many as keep <= 24 accumulators, up to
// 8 (a single row needs eight independent chains to hide the FMA latency).
constexpr int panels_for_rows(int mr) { return mr == 1 ? 8 : mr == 2 ? 8 : std::max(1, 24 / mr); }
constexpr int kMaxTileRows = 16;
// Prefill: row tiles of this many rows (12 x 2 panels: 24 accumulators, 14 loads per 24 FMAs).
constexpr int kWideTileRows = 12;
constexpr int kAvx2TileRows = 6;

#if LLM_HAVE_X86
using Tile512Fn = void (*)(const TileArgs&, bool);
template <bool KMajorX, size_t... I>
constexpr std::array<Tile512Fn, sizeof...(I)> make_grouped(std::index_sequence<I...>) {
  return {
      &tile_avx512<static_cast<int>(I) + 1, panels_for_rows(static_cast<int>(I) + 1), KMajorX>...};
}
template <bool KMajorX, size_t... I>
constexpr std::array<Tile512Fn, sizeof...(I)> make_single(std::index_sequence<I...>) {
  return {&tile_avx512<static_cast<int>(I) + 1, 1, KMajorX>...};
}
constexpr auto kGrouped512 = make_grouped<false>(std::make_index_sequence<kMaxTileRows>{});
constexpr auto kSingle512 = make_single<false>(std::make_index_sequence<kMaxTileRows>{});
constexpr auto kGrouped512KMajor = make_grouped<true>(std::make_index_sequence<kMaxTileRows>{});
constexpr auto kSingle512KMajor = make_single<true>(std::make_index_sequence<kMaxTileRows>{});

using Tile2Fn = void (*)(const TileArgs&);
template <size_t... I>
constexpr std::array<Tile2Fn, sizeof...(I)> make_avx2(std::index_sequence<I...>) {
  return {&tile_avx2<static_cast<int>(I) + 1>...};
}
constexpr auto kTiles2 = make_avx2(std::make_index_sequence<kAvx2TileRows>{});
#endif

// The rows of one tile and the panels one tile takes at once on `level` for a block of `rows`.
int tile_rows(SimdLevel level, int64_t rows) {
  if (level == SimdLevel::kAvx512) {
    return static_cast<int>(rows <= kMaxTileRows ? rows : kWideTileRows);
  }
  return static_cast<int>(
      std::min<int64_t>(rows, level == SimdLevel::kAvx2Fma ? kAvx2TileRows : 4));
}

int group_panels(SimdLevel level, int64_t rows) {
  return level == SimdLevel::kAvx512 ? panels_for_rows(tile_rows(level, rows)) : 1;
}

// The rows a product reads: row-major at stride ld, or kmajor_rows' copy (AVX-512 tiles only;
// ld is then the number of rows, and row r starts at x + r).
struct ProductRows {
  const float* x;
  int64_t ld;
  bool kmajor;
  const float* row(int64_t r) const { return x + (kmajor ? r : r * ld); }
  ProductRows from(int64_t r) const { return {row(r), ld, kmajor}; }  // rows r, r + 1, ...
};

// One block of a product: rows [0, rows) of x times panels [p0, p1) of w, out and bias at the
// block's first row and column. Panels go in groups that one tile takes at once; each group runs
// down all row tiles while its weights are in cache.
void run_block(SimdLevel level, const ProductRows& x, int64_t rows, const PackedMatrix& w,
               int64_t p0, int64_t p1, const float* bias, float* out, int64_t ldo, bool streamed) {
  const int main_rows = tile_rows(level, rows);
  const int group = group_panels(level, rows);
  const int64_t stride = w.k * kPanelWidth;
  for (int64_t g = p0; g < p1; g += group) {
    const int64_t g1 = std::min(p1, g + group);
    for (int64_t r = 0; r < rows; r += main_rows) {
      const int mr = static_cast<int>(std::min<int64_t>(main_rows, rows - r));
      auto args = [&](int64_t p) {
        const int64_t c0 = (p - p0) * kPanelWidth;
        const int cols = static_cast<int>(std::min(kPanelWidth, w.n - p * kPanelWidth));
        return TileArgs{x.row(r),
                        x.ld,
                        w.data.get() + p * stride,
                        w.k,
                        bias ? bias + c0 : nullptr,
                        out + r * ldo + c0,
                        ldo,
                        cols};
      };
      // Only the first row tile of a group pulls its weights from memory.
      const bool ahead = streamed && r == 0;
#if LLM_HAVE_X86
      if (level == SimdLevel::kAvx512) {
        const auto& grouped = x.kmajor ? kGrouped512KMajor : kGrouped512;
        const auto& single = x.kmajor ? kSingle512KMajor : kSingle512;
        if (g1 - g == group && mr == main_rows) {
          TileArgs a = args(g);
          a.cols = args(g1 - 1).cols;
          grouped[static_cast<size_t>(mr - 1)](a, ahead);
        } else {
          for (int64_t p = g; p < g1; ++p) single[static_cast<size_t>(mr - 1)](args(p), ahead);
        }
        continue;
      }
      if (level == SimdLevel::kAvx2Fma) {
        for (int64_t p = g; p < g1; ++p) kTiles2[static_cast<size_t>(mr - 1)](args(p));
        continue;
      }
#endif
      for (int64_t p = g; p < g1; ++p) tile_portable(args(p), mr, 1);
    }
  }
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

// How a product of m rows over k is cut into tasks: a task is `panels` panels (a multiple of the
// tile's group) by `rows` rows.
// - Small batches (decode, m <= 16) keep every row in one task, so each weight is read from
//   memory once, by one tile; a task streams about kTaskBytes of weights (256 KiB made batch-16
//   decode 5% faster than 128 KiB; 512 KiB was no faster).
// - Large batches (prefill) take row blocks of about 256 KiB of activations, which stay in L2
//   while the task's panels (kBlockGroups tile groups) go by. (Blocking k as well, in chunks of
//   128-512 with the panels' chunk in L1, was measured and was 5-15% slower on the GEMM benchmark.)
constexpr int64_t kTaskBytes = 262144;
constexpr int64_t kBlockGroups = 3;

struct Blocking {
  int64_t panels, rows;
  bool streamed;  // the weights come from memory (each is used by one row block only)
};

Blocking blocking_for(SimdLevel level, int64_t m, int64_t k) {
  const int64_t kk = std::max<int64_t>(k, 1);
  Blocking b{};
  if (m <= kMaxTileRows) {
    b.rows = m;
    b.streamed = true;
    const int64_t group = group_panels(level, m);
    const int64_t per_panel = kk * kPanelWidth * static_cast<int64_t>(sizeof(float));
    b.panels = std::max<int64_t>(1, (kTaskBytes / per_panel + group / 2) / group) * group;
    return b;
  }
  const int64_t tile = tile_rows(level, m);
  b.rows = std::max<int64_t>(tile, std::min<int64_t>(65536 / kk, 256) / tile * tile);
  b.streamed = false;
  b.panels = kBlockGroups * group_panels(level, m);
  return b;
}

// The m rows of x (row stride ldx) k-major, [k][m], in the calling thread's buffer: it stays valid
// until the thread's next call, so the pool's workers read it during the loop that follows.
const float* kmajor_rows(const float* x, int64_t ldx, int64_t m, int64_t k) {
  thread_local std::vector<float> buf;
  buf.resize(static_cast<size_t>(k * m));
  for (int64_t r = 0; r < m; ++r) {
    const float* row = x + r * ldx;
    float* col = buf.data() + r;
    for (int64_t i = 0; i < k; ++i) col[i * m] = row[i];
  }
  return buf.data();
}

// The rows the tiles of a product of x's m rows read: kmajor_rows' copy for the AVX-512 tiles of a
// streamed product of 2 or more rows (all in one tile; a single row is its own k-major copy), else
// x itself.
ProductRows product_rows(SimdLevel level, const Blocking& b, const float* x, int64_t ldx, int64_t m,
                         int64_t k) {
  if (LLM_HAVE_X86 && level == SimdLevel::kAvx512 && b.streamed && m >= 2) {
    return {kmajor_rows(x, ldx, m, k), m, true};
  }
  return {x, ldx, false};
}

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

void matmul(ThreadPool* pool, const float* x, int64_t ldx, int64_t m, int64_t k,
            std::span<const MatmulPart> parts) {
  if (m <= 0) return;
  const SimdLevel level = simd_level();
  const Blocking b = blocking_for(level, m, k);
  const ProductRows rows_in = product_rows(level, b, x, ldx, m, k);
  const int64_t row_blocks = ceil_div(m, b.rows);
  // Task t is (column block, row block): the column blocks of the parts one part after the other
  // (found by a walk over the few parts: no task list is built), row blocks within each.
  int64_t col_blocks = 0, outputs = 0;
  for (const MatmulPart& p : parts) {
    col_blocks += ceil_div(p.w->panels(), b.panels);
    outputs += p.w->n;
  }
  auto run_task = [&](int64_t t) {
    const int64_t rb = t % row_blocks;
    int64_t cb = t / row_blocks;
    size_t i = 0;
    for (; cb >= ceil_div(parts[i].w->panels(), b.panels); ++i) {
      cb -= ceil_div(parts[i].w->panels(), b.panels);
    }
    const MatmulPart& p = parts[i];
    const int64_t p0 = cb * b.panels, p1 = std::min(p.w->panels(), p0 + b.panels);
    const int64_t r0 = rb * b.rows, rows = std::min(m, r0 + b.rows) - r0;
    run_block(level, rows_in.from(r0), rows, *p.w, p0, p1,
              p.bias ? p.bias + p0 * kPanelWidth : nullptr, p.out + r0 * p.ldo + p0 * kPanelWidth,
              p.ldo, b.streamed);
  };
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(outputs);
  run_tasks(pool, col_blocks * row_blocks, flops, run_task);
}

void matmul_swiglu(ThreadPool* pool, const float* x, int64_t ldx, int64_t m, int64_t k,
                   const PackedMatrix& gate, const PackedMatrix& up, float* out, int64_t ldo) {
  if (m <= 0 || gate.n <= 0) return;
  const SimdLevel level = simd_level();
  const Blocking b = blocking_for(level, m, k);
  const ProductRows rows_in = product_rows(level, b, x, ldx, m, k);
  const int64_t row_blocks = ceil_div(m, b.rows), col_blocks = ceil_div(gate.panels(), b.panels);
  auto run_task = [&](int64_t t) {
    thread_local std::vector<float> up_block;
    const int64_t rb = t % row_blocks, cb = t / row_blocks;
    const int64_t p0 = cb * b.panels, p1 = std::min(gate.panels(), p0 + b.panels);
    const int64_t r0 = rb * b.rows, rows = std::min(m, r0 + b.rows) - r0;
    const int64_t c0 = p0 * kPanelWidth, cols = std::min(gate.n, p1 * kPanelWidth) - c0;
    up_block.resize(static_cast<size_t>(rows * cols));
    float* o = out + r0 * ldo + c0;
    const ProductRows xb = rows_in.from(r0);
    run_block(level, xb, rows, gate, p0, p1, nullptr, o, ldo, b.streamed);
    run_block(level, xb, rows, up, p0, p1, nullptr, up_block.data(), cols, b.streamed);
    for (int64_t r = 0; r < rows; ++r) {
      silu_mul(o + r * ldo, up_block.data() + r * cols, cols, o + r * ldo);
    }
  };
  const double flops =
      4.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(gate.n);
  run_tasks(pool, col_blocks * row_blocks, flops, run_task);
}

}  // namespace llm
