// Paged attention against reference::ref_attention: shuffled physical blocks, sequence lengths
// block-1 / block / block+1 and a long one over several splits, GQA groups 1/2/4/8, head_dim 64
// and 128, decode rows and prefill (causal, per-position) rows, bf16 and fp8 KV.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "kernels/paged_attention.h"
#include "kernels/tests/kernel_test_util.h"

namespace llm::kernels::testing {
namespace {

using reference::from_bf16;
using reference::from_fp8_e4m3;
using reference::ref_attention;
using reference::RefKv;
using reference::to_bf16;
using reference::to_fp8_e4m3;

struct AttentionCase {
  int32_t group;
  int32_t head_dim;
  KvDtype dtype;
  int32_t partition;
};

std::string case_name(const AttentionCase& c) {
  return "paged_attention gqa " + std::to_string(c.group) + " hd " + std::to_string(c.head_dim) +
         (c.dtype == KvDtype::kFp8E4m3 ? " fp8" : " bf16") + " partition " +
         std::to_string(c.partition);
}

void attention_case(Report& report, const AttentionCase& c) {
  TestRng rng(100 + c.group * 31 + c.head_dim + int(c.dtype) * 5 + c.partition);
  const int32_t bs = 16, kv_heads = 2, q_heads = kv_heads * c.group, hd = c.head_dim;
  const std::vector<int32_t> lengths = {bs - 1, bs, bs + 1, 1000};
  // Physical blocks: every sequence's blocks drawn from a shuffled pool (block 0 unused, as the
  // engine's null block).
  std::vector<int32_t> indptr = {0}, indices, last;
  for (int32_t len : lengths) {
    indptr.push_back(indptr.back() + (len + bs - 1) / bs);
    last.push_back(len - (indptr.back() - indptr[indptr.size() - 2] - 1) * bs);
  }
  const int32_t num_blocks = indptr.back() + 1;
  std::vector<int32_t> pool(size_t(num_blocks - 1));
  std::iota(pool.begin(), pool.end(), 1);
  for (size_t i = pool.size(); i > 1; --i)
    std::swap(pool[i - 1], pool[size_t(rng.below(int32_t(i)))]);
  indices = pool;
  // K/V values: what the reference reads (decoded) and what the cache holds (encoded).
  const float scale_k = c.dtype == KvDtype::kFp8E4m3 ? 0.01f : 1.0f, scale_v = scale_k;
  const int64_t entries = int64_t(num_blocks) * kv_heads * bs * hd;
  const int64_t elem = kv_dtype_bytes(c.dtype);
  std::vector<uint8_t> k_bytes(size_t(entries * elem)), v_bytes(k_bytes.size());
  std::vector<std::vector<RefKv>> ref(lengths.size(), std::vector<RefKv>(size_t(kv_heads)));
  auto store = [&](std::vector<uint8_t>& bytes, int64_t i, float x, float scale) {
    if (c.dtype == KvDtype::kFp8E4m3) {
      const uint8_t code = to_fp8_e4m3(x / scale);
      bytes[size_t(i)] = code;
      return from_fp8_e4m3(code) * scale;
    }
    const uint16_t b = to_bf16(x);
    bytes[size_t(2 * i)] = uint8_t(b & 0xff);
    bytes[size_t(2 * i + 1)] = uint8_t(b >> 8);
    return from_bf16(b);
  };
  for (size_t s = 0; s < lengths.size(); ++s) {
    for (int32_t g = 0; g < kv_heads; ++g) {
      RefKv& kv = ref[s][size_t(g)];
      for (int32_t p = 0; p < lengths[s]; ++p) {
        const int64_t block = indices[size_t(indptr[s] + p / bs)];
        const int64_t off = ((block * kv_heads + g) * bs + p % bs) * hd;
        for (int32_t i = 0; i < hd; ++i) {
          kv.k.push_back(store(k_bytes, off + i, rng.uniform(-1.5f, 1.5f), scale_k));
          kv.v.push_back(store(v_bytes, off + i, rng.uniform(-1, 1), scale_v));
        }
      }
    }
  }
  // Rows: a decode row per sequence, then prefill rows: all of sequence 2 and the last 20
  // positions of sequence 3 (a chunk after a cached prefix).
  std::vector<int32_t> row_seq, row_pos;
  for (size_t s = 0; s < lengths.size(); ++s) {
    row_seq.push_back(int32_t(s));
    row_pos.push_back(lengths[s] - 1);
  }
  for (int32_t p = 0; p < lengths[2]; ++p) {
    row_seq.push_back(2);
    row_pos.push_back(p);
  }
  for (int32_t p = lengths[3] - 20; p < lengths[3]; ++p) {
    row_seq.push_back(3);
    row_pos.push_back(p);
  }
  const int32_t rows = int32_t(row_seq.size());
  const int32_t q_stride = q_heads * hd + 2 * kv_heads * hd;
  const std::vector<uint16_t> q = random_bf16(rng, size_t(rows) * q_stride, -1.5f, 1.5f);
  const int32_t max_ctx = *std::max_element(row_pos.begin(), row_pos.end()) + 1;
  const int32_t splits = (max_ctx + c.partition - 1) / c.partition;
  const float scale = 1.0f / std::sqrt(float(hd));

  DeviceBuffer<uint16_t> d_q(q), d_out(size_t(rows) * q_heads * hd);
  DeviceBuffer<int32_t> d_seq(row_seq), d_pos(row_pos), d_indptr(indptr), d_indices(indices),
      d_last(last);
  DeviceBuffer<uint8_t> d_k(k_bytes), d_v(v_bytes);
  DeviceBuffer<float> d_ws(
      size_t(std::max<int64_t>(1, paged_attention_workspace_floats(rows, q_heads, hd, splits))));
  PagedAttentionArgs a;
  a.q = d_q.get();
  a.q_stride = q_stride;
  a.out = d_out.get();
  a.row_seq = d_seq.get();
  a.row_pos = d_pos.get();
  a.pages = {d_indptr.get(), d_indices.get(), d_last.get(), int32_t(lengths.size())};
  a.kv = {d_k.get(), d_v.get(), num_blocks, kv_heads, bs, hd, c.dtype, scale_k, scale_v};
  a.rows = rows;
  a.q_heads = q_heads;
  a.scale = scale;
  a.num_splits = splits;
  a.partition = c.partition;
  a.workspace = d_ws.get();
  KT_CUDA(paged_attention(a, nullptr));
  std::vector<float> want(size_t(rows) * q_heads * hd);
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t h = 0; h < q_heads; ++h) {
      std::vector<float> qh(static_cast<size_t>(hd));
      for (int32_t i = 0; i < hd; ++i)
        qh[size_t(i)] = from_bf16(q[size_t(r) * q_stride + h * hd + i]);
      ref_attention(qh.data(), ref[size_t(row_seq[size_t(r)])][size_t(h / c.group)], hd,
                    row_pos[size_t(r)], scale, want.data() + (size_t(r) * q_heads + h) * hd);
    }
  }
  report.compare(case_name(c) + " (" + std::to_string(splits) + " splits)",
                 widen_bf16(d_out.download()), want, kBf16Tol);
}

}  // namespace

void run_attention_tests(Report& report) {
  for (int32_t group : {1, 2, 4, 8}) {
    attention_case(report, {group, 128, KvDtype::kBf16, 512});
    attention_case(report, {group, 64, KvDtype::kBf16, 64});
  }
  attention_case(report, {4, 128, KvDtype::kBf16, 1024});
  attention_case(report, {4, 64, KvDtype::kFp8E4m3, 256});
  attention_case(report, {3, 24, KvDtype::kBf16, 512});  // the CPU tests' tiny Qwen2 head
  PagedAttentionArgs bad;
  bad.q_heads = 6;
  bad.kv.kv_heads = 4;
  bad.kv.head_dim = 128;
  report.expect("paged_attention rejects q_heads % kv_heads != 0",
                paged_attention(bad, nullptr) == cudaErrorInvalidValue);
  cudaGetLastError();
}

}  // namespace llm::kernels::testing
