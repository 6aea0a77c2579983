#include "backends/cpu/matmul.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "backends/cpu/thread_pool.h"
#include "core/rng.h"

namespace llm {
namespace {

std::vector<float> random_vec(uint64_t seed, int64_t n) {
  Rng rng(seed);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = static_cast<float>(2 * rng.uniform() - 1);
  return v;
}

struct Shape {
  int64_t m, n, k;
};

// The order matmul.h promises: one FMA chain over k in increasing order from zero, then the bias.
float fma_chain(const float* x, const float* w_row, int64_t k, float bias) {
  float acc = 0.0f;
  for (int64_t q = 0; q < k; ++q) acc = std::fma(x[q], w_row[q], acc);
  return acc + bias;
}

class MatmulTest : public ::testing::TestWithParam<SimdLevel> {
 protected:
  void SetUp() override {
    force_simd_level(GetParam());
    if (simd_level() != GetParam()) GTEST_SKIP() << "this CPU lacks " << simd_name(GetParam());
  }
  void TearDown() override { force_simd_level(SimdLevel::kAvx512); }
};

TEST_P(MatmulTest, MatchesDoubleReferenceWithBias) {
  ThreadPool pool(2);
  for (const Shape s : {Shape{1, 1, 1}, Shape{1, 37, 7}, Shape{3, 5, 8}, Shape{5, 29, 100},
                        Shape{16, 200, 64}, Shape{33, 70, 250}, Shape{130, 61, 1000}}) {
    const auto x = random_vec(1, s.m * s.k), w = random_vec(2, s.n * s.k), b = random_vec(3, s.n);
    std::vector<float> out(static_cast<size_t>(s.m * s.n));
    const PackedMatrix pw = pack_matrix(w.data(), s.n, s.k);
    const MatmulPart part{&pw, b.data(), out.data(), s.n};
    matmul(&pool, x.data(), s.k, s.m, s.k, {&part, 1});
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        double ref = b[j];
        for (int64_t q = 0; q < s.k; ++q) ref += double(x[i * s.k + q]) * w[j * s.k + q];
        // fp32 accumulation error bound ~ k * eps * sum|x w|; |x w| <= 1.
        ASSERT_NEAR(out[i * s.n + j], ref, 1e-6 * double(s.k) + 1e-6)
            << s.m << "x" << s.n << "x" << s.k << " at " << i << "," << j;
      }
    }
  }
}

TEST_P(MatmulTest, EveryOutputIsTheFmaChainWhateverTheBatchAndThreads) {
  // Shapes that cross every tile edge: one row, the 16-row decode tile, several 12-row prefill
  // tiles and row blocks, partial panels, and a k longer than the prefetch distance.
  for (const Shape s : {Shape{1, 150, 203}, Shape{37, 150, 203}, Shape{16, 33, 64},
                        Shape{300, 70, 40}, Shape{5, 17, 1}, Shape{40, 100, 3000}}) {
    const auto x = random_vec(4, s.m * s.k), w = random_vec(5, s.n * s.k), b = random_vec(6, s.n);
    const PackedMatrix pw = pack_matrix(w.data(), s.n, s.k);
    std::vector<float> all(static_cast<size_t>(s.m * s.n));
    ThreadPool pool(2);
    const MatmulPart part{&pw, b.data(), all.data(), s.n};
    matmul(&pool, x.data(), s.k, s.m, s.k, {&part, 1});
    for (int64_t i = 0; i < s.m; ++i) {
      std::vector<float> one(static_cast<size_t>(s.n));
      const MatmulPart p1{&pw, b.data(), one.data(), s.n};
      matmul(nullptr, x.data() + i * s.k, s.k, 1, s.k, {&p1, 1});  // alone, one thread
      for (int64_t j = 0; j < s.n; ++j) {
        ASSERT_EQ(one[j], all[i * s.n + j]) << s.m << "x" << s.n << "x" << s.k << " row " << i;
        ASSERT_EQ(fma_chain(x.data() + i * s.k, w.data() + j * s.k, s.k, b[j]), one[j])
            << s.m << "x" << s.n << "x" << s.k << " row " << i << " col " << j;
      }
    }
    // A sub-batch starting at an odd row: other tile edges, same bits.
    const int64_t first = std::min<int64_t>(5, s.m - 1), rows = std::min<int64_t>(7, s.m - first);
    std::vector<float> sub(static_cast<size_t>(rows * s.n));
    const MatmulPart p7{&pw, b.data(), sub.data(), s.n};
    matmul(&pool, x.data() + first * s.k, s.k, rows, s.k, {&p7, 1});
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < s.n; ++j) ASSERT_EQ(sub[i * s.n + j], all[(i + first) * s.n + j]);
    }
  }
}

TEST_P(MatmulTest, ReadsRowsAtTheirStrideAndWritesOnlyItsColumns) {
  // 20 rows: prefill tiles over the rows in place; 9 rows: a decode batch, whose tile reads a
  // k-major copy of the rows (AVX-512).
  for (const int64_t m : {20, 9}) {
    const int64_t n = 37, k = 50, ldx = 64, ldo = 45;
    const auto x = random_vec(7, m * ldx), w = random_vec(8, n * k);
    const PackedMatrix pw = pack_matrix(w.data(), n, k);
    std::vector<float> out(static_cast<size_t>(m * ldo), -7.0f);
    const MatmulPart part{&pw, nullptr, out.data(), ldo};
    matmul(nullptr, x.data(), ldx, m, k, {&part, 1});
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < ldo; ++j) {
        const float want = j < n ? fma_chain(x.data() + i * ldx, w.data() + j * k, k, 0.0f) : -7.0f;
        ASSERT_EQ(out[i * ldo + j], want) << m << " rows: row " << i << " col " << j;
      }
    }
  }
}

TEST(PackedMatrix, PanelsAreKMajorAndPaddedWithZeros) {
  const int64_t n = 20, k = 3;
  std::vector<float> w(static_cast<size_t>(n * k));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < k; ++i) w[j * k + i] = static_cast<float>(100 * j + i);
  }
  const PackedMatrix p = pack_matrix(w.data(), n, k);
  ASSERT_EQ(p.panels(), 2);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p.panel(0)) % 64, 0u);
  for (int64_t panel = 0; panel < 2; ++panel) {
    for (int64_t i = 0; i < k; ++i) {
      for (int64_t c = 0; c < kPanelWidth; ++c) {
        const int64_t j = panel * kPanelWidth + c;
        const float want = j < n ? static_cast<float>(100 * j + i) : 0.0f;
        ASSERT_EQ(p.panel(panel)[i * kPanelWidth + c], want) << panel << " " << i << " " << c;
      }
    }
  }
}

TEST_P(MatmulTest, SeveralPartsShareOneLoop) {
  const int64_t k = 64, m = 3;
  const auto x = random_vec(6, m * k), a = random_vec(7, 40 * k), b = random_vec(8, 1000 * k);
  std::vector<float> oa(m * 40), ob(m * 1000), ra(m * 40), rb(m * 1000);
  ThreadPool pool(3);
  const PackedMatrix pa_w = pack_matrix(a.data(), 40, k), pb_w = pack_matrix(b.data(), 1000, k);
  const MatmulPart both[] = {{&pa_w, nullptr, oa.data(), 40}, {&pb_w, nullptr, ob.data(), 1000}};
  matmul(&pool, x.data(), k, m, k, both);
  const MatmulPart pa{&pa_w, nullptr, ra.data(), 40}, pb{&pb_w, nullptr, rb.data(), 1000};
  matmul(nullptr, x.data(), k, m, k, {&pa, 1});
  matmul(nullptr, x.data(), k, m, k, {&pb, 1});
  EXPECT_EQ(oa, ra);
  EXPECT_EQ(ob, rb);
}

INSTANTIATE_TEST_SUITE_P(Simd, MatmulTest,
                         ::testing::Values(SimdLevel::kPortable, SimdLevel::kAvx2Fma,
                                           SimdLevel::kAvx512),
                         [](const auto& info) { return simd_name(info.param); });

TEST(ThreadPool, RunsEveryTaskOnceAcrossManyLoops) {
  ThreadPool pool(2);
  std::vector<int> hits(1000, 0);
  for (int loop = 0; loop < 200; ++loop) {
    const int64_t n = 1 + loop * 5 % 1000;
    auto fn = [&](int64_t t) { ++hits[static_cast<size_t>(t)]; };
    pool.run(n, fn);
  }
  int64_t total = 0;
  for (int h : hits) total += h;
  int64_t expected = 0;
  for (int loop = 0; loop < 200; ++loop) expected += 1 + loop * 5 % 1000;
  EXPECT_EQ(total, expected);
}

}  // namespace
}  // namespace llm
