// paged_attention on every SIMD path: matches a double-precision softmax attention over the same
// keys and values, for block sizes and head dimensions that are and are not multiples of the
// vector widths; and gives identical bits wherever the sequence's blocks lie in the cache.
#include "backends/cpu/attention.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "backends/cpu/matmul.h"
#include "core/rng.h"

namespace llm {
namespace {

struct Case {
  int64_t block_size, head_dim, pos;
};

// Positions 0..pos of one KV head, their blocks placed at `table` in a cache of `blocks` blocks.
struct Filled {
  PagedKvCache kv;
  std::vector<int32_t> table;
};

Filled fill(const Case& c, const std::vector<std::vector<float>>& keys,
            const std::vector<std::vector<float>>& values, bool shuffled) {
  const int64_t n = c.pos + 1, used = (n + c.block_size - 1) / c.block_size, blocks = used + 3;
  Filled f{PagedKvCache(blocks, 2, 2, c.head_dim, c.block_size), {}};
  std::vector<int32_t> ids(static_cast<size_t>(blocks));
  std::iota(ids.begin(), ids.end(), 0);
  if (shuffled) std::reverse(ids.begin(), ids.end());
  f.table.assign(ids.begin(), ids.begin() + used);
  const int64_t layer = 1, head = 1;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t block = f.table[static_cast<size_t>(j / c.block_size)], slot = j % c.block_size;
    for (int64_t i = 0; i < c.head_dim; ++i) {
      f.kv.k[static_cast<size_t>(f.kv.k_index(layer, block, head, slot, i))] =
          keys[static_cast<size_t>(j)][static_cast<size_t>(i)];
    }
    std::copy(values[static_cast<size_t>(j)].begin(), values[static_cast<size_t>(j)].end(),
              f.kv.v.get() + f.kv.v_offset(layer, block, head, slot));
  }
  return f;
}

class AttentionTest : public ::testing::TestWithParam<SimdLevel> {
 protected:
  void SetUp() override {
    force_simd_level(GetParam());
    if (simd_level() != GetParam()) GTEST_SKIP() << "this CPU lacks " << simd_name(GetParam());
  }
  void TearDown() override { force_simd_level(SimdLevel::kAvx512); }
};

TEST_P(AttentionTest, MatchesDoubleSoftmaxAttentionWhereverTheBlocksLie) {
  for (const Case c : {Case{1, 16, 0}, Case{4, 16, 9}, Case{3, 24, 40}, Case{16, 64, 128},
                       Case{16, 64, 15}, Case{32, 64, 100}, Case{16, 72, 47}, Case{5, 8, 2}}) {
    Rng rng(static_cast<uint64_t>(c.block_size * 1000 + c.head_dim * 10 + c.pos));
    const int64_t n = c.pos + 1, d = c.head_dim;
    auto vec = [&] {
      std::vector<float> v(static_cast<size_t>(d));
      for (float& x : v) x = static_cast<float>(4 * rng.uniform() - 2);
      return v;
    };
    const std::vector<float> q = vec();
    std::vector<std::vector<float>> keys, values;
    for (int64_t j = 0; j < n; ++j) {
      keys.push_back(vec());
      values.push_back(vec());
    }
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    std::vector<double> w(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t i = 0; i < d; ++i) s += double(q[i]) * keys[j][i];
      w[j] = s * scale;
    }
    const double mx = *std::max_element(w.begin(), w.end());
    double sum = 0;
    for (double& x : w) sum += (x = std::exp(x - mx));
    const Filled a = fill(c, keys, values, false), b = fill(c, keys, values, true);
    std::vector<float> scores, out_a(static_cast<size_t>(d)), out_b(static_cast<size_t>(d));
    paged_attention(q.data(), a.kv, 1, 1, a.table, c.pos, scale, scores, out_a.data());
    paged_attention(q.data(), b.kv, 1, 1, b.table, c.pos, scale, scores, out_b.data());
    for (int64_t i = 0; i < d; ++i) {
      double ref = 0;
      for (int64_t j = 0; j < n; ++j) ref += w[j] / sum * values[j][i];
      ASSERT_NEAR(out_a[i], ref, 2e-5)
          << "bs " << c.block_size << " d " << d << " pos " << c.pos << " dim " << i;
      ASSERT_EQ(out_a[i], out_b[i]) << "bs " << c.block_size << " d " << d << " pos " << c.pos;
    }
  }
}

TEST_P(AttentionTest, AOneHotScoreCopiesItsValue) {
  // One key far above the others: the softmax puts all the weight on it (exp underflows to 0).
  const Case c{4, 16, 10};
  std::vector<std::vector<float>> keys(11, std::vector<float>(16, 0.0f)), values;
  for (int64_t j = 0; j < 11; ++j) values.emplace_back(16, static_cast<float>(j));
  keys[7].assign(16, 100.0f);
  const std::vector<float> q(16, 1.0f);
  const Filled f = fill(c, keys, values, true);
  std::vector<float> scores, out(16);
  paged_attention(q.data(), f.kv, 1, 1, f.table, c.pos, 0.25f, scores, out.data());
  for (float v : out) EXPECT_EQ(v, 7.0f);
}

TEST_P(AttentionTest, HeadsTogetherHaveTheBitsOfEachHeadAlone) {
  // 1..7 heads over one KV head: chunks of three, two and one on the AVX-512 path.
  for (const Case c : {Case{16, 64, 130}, Case{4, 24, 9}, Case{16, 72, 33}}) {
    Rng rng(static_cast<uint64_t>(c.head_dim + c.pos));
    const int64_t n = c.pos + 1, d = c.head_dim;
    auto vec = [&](int64_t len) {
      std::vector<float> v(static_cast<size_t>(len));
      for (float& x : v) x = static_cast<float>(4 * rng.uniform() - 2);
      return v;
    };
    std::vector<std::vector<float>> keys, values;
    for (int64_t j = 0; j < n; ++j) {
      keys.push_back(vec(d));
      values.push_back(vec(d));
    }
    const Filled f = fill(c, keys, values, true);
    for (int64_t heads = 1; heads <= 7; ++heads) {
      const std::vector<float> q = vec(heads * d);
      std::vector<float> scores, together(static_cast<size_t>(heads * d));
      paged_attention(q.data(), heads, f.kv, 1, 1, f.table, c.pos, 0.125f, scores, together.data());
      for (int64_t h = 0; h < heads; ++h) {
        std::vector<float> alone(static_cast<size_t>(d));
        paged_attention(q.data() + h * d, f.kv, 1, 1, f.table, c.pos, 0.125f, scores, alone.data());
        for (int64_t i = 0; i < d; ++i) {
          ASSERT_EQ(together[h * d + i], alone[i]) << heads << " heads, head " << h << " dim " << i;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Simd, AttentionTest,
                         ::testing::Values(SimdLevel::kPortable, SimdLevel::kAvx2Fma,
                                           SimdLevel::kAvx512),
                         [](const auto& info) { return simd_name(info.param); });

}  // namespace
}  // namespace llm
