#include "backends/cpu/matmul.h"

#include <gtest/gtest.h>

#include <cmath>
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
    const MatmulPart part{w.data(), s.n, b.data(), out.data(), s.n};
    matmul(&pool, x.data(), s.m, s.k, {&part, 1});
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

TEST_P(MatmulTest, EveryRowIsBitIdenticalWhateverTheBatchAndThreads) {
  const int64_t n = 150, k = 203, m = 37;
  const auto x = random_vec(4, m * k), w = random_vec(5, n * k);
  std::vector<float> all(static_cast<size_t>(m * n));
  ThreadPool pool(2);
  const MatmulPart part{w.data(), n, nullptr, all.data(), n};
  matmul(&pool, x.data(), m, k, {&part, 1});
  for (int64_t i = 0; i < m; ++i) {
    std::vector<float> one(static_cast<size_t>(n));
    const MatmulPart p1{w.data(), n, nullptr, one.data(), n};
    matmul(nullptr, x.data() + i * k, 1, k, {&p1, 1});  // alone, one thread
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(one[j], all[i * n + j]) << "row " << i << " col " << j;
      ASSERT_EQ(dot(x.data() + i * k, w.data() + j * k, k), one[j]);
    }
  }
  // A sub-batch starting at an odd row: other tile edges, same bits.
  std::vector<float> sub(static_cast<size_t>(7 * n));
  const MatmulPart p7{w.data(), n, nullptr, sub.data(), n};
  matmul(&pool, x.data() + 5 * k, 7, k, {&p7, 1});
  for (int64_t i = 0; i < 7; ++i) {
    for (int64_t j = 0; j < n; ++j) ASSERT_EQ(sub[i * n + j], all[(i + 5) * n + j]);
  }
}

TEST_P(MatmulTest, SeveralPartsShareOneLoop) {
  const int64_t k = 64, m = 3;
  const auto x = random_vec(6, m * k), a = random_vec(7, 40 * k), b = random_vec(8, 1000 * k);
  std::vector<float> oa(m * 40), ob(m * 1000), ra(m * 40), rb(m * 1000);
  ThreadPool pool(3);
  const MatmulPart both[] = {{a.data(), 40, nullptr, oa.data(), 40},
                             {b.data(), 1000, nullptr, ob.data(), 1000}};
  matmul(&pool, x.data(), m, k, both);
  const MatmulPart pa{a.data(), 40, nullptr, ra.data(), 40},
      pb{b.data(), 1000, nullptr, rb.data(), 1000};
  matmul(nullptr, x.data(), m, k, {&pa, 1});
  matmul(nullptr, x.data(), m, k, {&pb, 1});
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
