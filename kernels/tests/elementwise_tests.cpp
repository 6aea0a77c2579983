// Embedding gather, add + RMSNorm, SiLU * up and RoPE + KV write against kernels/reference.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "kernels/elementwise.h"
#include "kernels/rope_kv_write.h"
#include "kernels/tests/kernel_test_util.h"

namespace llm::kernels::testing {
namespace {

using reference::from_bf16;
using reference::from_fp8_e4m3;
using reference::ref_rms_norm;
using reference::ref_rope;
using reference::ref_silu_mul;

void embedding_test(Report& report) {
  TestRng rng(1);
  const int32_t vocab = 1000, hidden = 2048, tokens = 37;
  const std::vector<uint16_t> table = random_bf16(rng, size_t{1} * vocab * hidden, -1, 1);
  std::vector<int32_t> ids(tokens);
  for (int32_t& id : ids) id = rng.below(vocab);
  ids[0] = vocab - 1;
  DeviceBuffer<uint16_t> d_table(table);
  DeviceBuffer<int32_t> d_ids(ids);
  DeviceBuffer<float> d_x(size_t{1} * tokens * hidden);
  KT_CUDA(embedding_gather(d_ids.get(), d_table.get(), tokens, hidden, d_x.get(), nullptr));
  std::vector<float> want;
  for (int32_t id : ids) {
    for (int32_t i = 0; i < hidden; ++i) want.push_back(from_bf16(table[size_t(id) * hidden + i]));
  }
  report.compare("embedding_gather (exact)", d_x.download(), want, {0, 0});
}

void rms_norm_test(Report& report, int32_t hidden, bool with_rows) {
  TestRng rng(2 + hidden);
  const int32_t tokens = 9;
  const float eps = 1e-5f;
  std::vector<float> x(size_t(tokens) * hidden), delta(x.size()), w(static_cast<size_t>(hidden));
  for (float& v : x) v = rng.uniform(-3, 3);
  for (float& v : delta) v = rng.uniform(-1, 1);
  for (float& v : w) v = rng.uniform(0.5f, 1.5f);
  const std::vector<int32_t> rows = {8, 0, 3};
  DeviceBuffer<float> d_x(x), d_delta(delta), d_w(w);
  DeviceBuffer<int32_t> d_rows(rows);
  const int32_t out_rows = with_rows ? 3 : tokens;
  DeviceBuffer<uint16_t> d_out(size_t(out_rows) * hidden);
  KT_CUDA(add_rms_norm(d_x.get(), with_rows ? nullptr : d_delta.get(),
                       with_rows ? d_rows.get() : nullptr, d_w.get(), out_rows, hidden, eps,
                       d_out.get(), nullptr));
  std::vector<float> want_x = x, want_out(size_t(out_rows) * hidden);
  if (!with_rows) {
    for (size_t i = 0; i < x.size(); ++i) want_x[i] += delta[i];
  }
  for (int32_t r = 0; r < out_rows; ++r) {
    const int32_t src = with_rows ? rows[size_t(r)] : r;
    ref_rms_norm(want_x.data() + size_t(src) * hidden, w.data(), hidden, eps,
                 want_out.data() + size_t(r) * hidden);
  }
  const std::string tag = " hidden " + std::to_string(hidden) + (with_rows ? " rows" : " add");
  report.compare("add_rms_norm residual" + tag, d_x.download(), want_x, kFp32Tol);
  report.compare("add_rms_norm out" + tag, widen_bf16(d_out.download()), want_out, kBf16Tol);
}

void silu_mul_test(Report& report) {
  TestRng rng(3);
  const int32_t tokens = 5, ffn = 8195;
  const std::vector<uint16_t> gu = random_bf16(rng, size_t(tokens) * 2 * ffn, -6, 6);
  DeviceBuffer<uint16_t> d_gu(gu), d_out(size_t(tokens) * ffn);
  KT_CUDA(silu_mul(d_gu.get(), tokens, ffn, d_out.get(), nullptr));
  std::vector<float> want(size_t(tokens) * ffn);
  const std::vector<float> wide = widen_bf16(gu);
  for (int32_t t = 0; t < tokens; ++t) {
    ref_silu_mul(wide.data() + size_t(t) * 2 * ffn, wide.data() + size_t(t) * 2 * ffn + ffn, ffn,
                 want.data() + size_t(t) * ffn);
  }
  report.compare("silu_mul ffn 8195", widen_bf16(d_out.download()), want, kBf16Tol);
}

// Llama 3-style frequencies: theta 500000 with some frequencies slowed by a factor 8.
std::vector<double> test_inv_freq(int32_t head_dim) {
  std::vector<double> f(size_t(head_dim / 2));
  for (size_t i = 0; i < f.size(); ++i) {
    f[i] = 1.0 / std::pow(500000.0, 2.0 * double(i) / head_dim);
    if (i >= f.size() / 2) f[i] /= 8.0;
  }
  return f;
}

float read_kv(const std::vector<uint8_t>& bytes, int64_t index, KvDtype dtype, float scale) {
  if (dtype == KvDtype::kFp8E4m3) return from_fp8_e4m3(bytes[size_t(index)]) * scale;
  const uint16_t bits = uint16_t(bytes[size_t(2 * index)] | (bytes[size_t(2 * index + 1)] << 8));
  return from_bf16(bits);
}

void rope_kv_write_test(Report& report, int32_t head_dim, RopeLayout layout, KvDtype dtype) {
  TestRng rng(4 + head_dim + int(layout) * 7 + int(dtype) * 13);
  const int32_t q_heads = 8, kv_heads = 2, bs = 16, num_blocks = 12;
  const int32_t q_dim = q_heads * head_dim, kv_dim = kv_heads * head_dim;
  const int32_t stride = q_dim + 2 * kv_dim + 8;  // padded rows
  // Two sequences over shuffled blocks; tokens at positions crossing block edges; one padding
  // token.
  const std::vector<int32_t> indptr = {0, 3, 5}, indices = {7, 2, 10, 0, 5}, last = {4, 16};
  const std::vector<int32_t> seq = {0, 0, 0, 1, -1, 1}, pos = {15, 16, 36, 0, 3, 31};
  const int32_t tokens = int32_t(seq.size());
  const std::vector<uint16_t> qkv = random_bf16(rng, size_t(tokens) * stride, -2, 2);
  std::vector<float> qb(static_cast<size_t>(q_dim)), kb(static_cast<size_t>(kv_dim)),
      vb(static_cast<size_t>(kv_dim));
  for (float& b : qb) b = rng.uniform(-0.1f, 0.1f);
  for (float& b : kb) b = rng.uniform(-0.1f, 0.1f);
  for (float& b : vb) b = rng.uniform(-0.1f, 0.1f);
  const std::vector<double> inv_freq = test_inv_freq(head_dim);
  const int64_t entries = int64_t(num_blocks) * kv_heads * bs * head_dim;
  const int64_t bytes = entries * kv_dtype_bytes(dtype);
  const float k_scale = dtype == KvDtype::kFp8E4m3 ? 0.05f : 1.0f, v_scale = k_scale * 0.5f;
  DeviceBuffer<uint16_t> d_qkv(qkv);
  DeviceBuffer<float> d_qb(qb), d_kb(kb), d_vb(vb);
  DeviceBuffer<double> d_freq(inv_freq);
  DeviceBuffer<int32_t> d_seq(seq), d_pos(pos), d_indptr(indptr), d_indices(indices), d_last(last);
  DeviceBuffer<uint8_t> d_k(static_cast<size_t>(bytes)), d_v(static_cast<size_t>(bytes));
  KT_CUDA(cudaMemset(d_k.get(), 0, size_t(bytes)));
  KT_CUDA(cudaMemset(d_v.get(), 0, size_t(bytes)));
  RopeKvWriteArgs a;
  a.qkv = d_qkv.get();
  a.row_stride = stride;
  a.q_bias = d_qb.get();
  a.k_bias = d_kb.get();
  a.v_bias = d_vb.get();
  a.inv_freq = d_freq.get();
  a.token_seq = d_seq.get();
  a.token_pos = d_pos.get();
  a.pages = {d_indptr.get(), d_indices.get(), d_last.get(), 2};
  a.kv = {d_k.get(), d_v.get(), num_blocks, kv_heads, bs, head_dim, dtype, k_scale, v_scale};
  a.tokens = tokens;
  a.q_heads = q_heads;
  a.layout = layout;
  KT_CUDA(rope_kv_write(a, nullptr));
  const std::vector<uint16_t> got_qkv = d_qkv.download();
  const std::vector<uint8_t> got_k = d_k.download(), got_v = d_v.download();
  std::vector<float> want_q, got_q, want_k, got_k_vals, want_v, got_v_vals;
  const bool interleaved = layout == RopeLayout::kInterleaved;
  bool untouched = true;  // the padding token's would-be slot and every unused slot stay zero
  std::vector<bool> written(size_t(entries), false);
  for (int32_t t = 0; t < tokens; ++t) {
    std::vector<float> row(static_cast<size_t>(stride));
    for (int32_t i = 0; i < stride; ++i) row[size_t(i)] = from_bf16(qkv[size_t(t) * stride + i]);
    for (int32_t h = 0; h < q_heads + kv_heads; ++h) {
      float* head = row.data() + size_t(h) * head_dim;
      const float* bias = h < q_heads ? qb.data() + size_t(h) * head_dim
                                      : kb.data() + size_t(h - q_heads) * head_dim;
      for (int32_t i = 0; i < head_dim; ++i) head[i] += bias[i];
      ref_rope(head, head_dim, inv_freq, pos[size_t(t)], interleaved);
    }
    for (int32_t i = 0; i < q_dim; ++i) {
      want_q.push_back(row[size_t(i)]);
      got_q.push_back(from_bf16(got_qkv[size_t(t) * stride + i]));
    }
    if (seq[size_t(t)] < 0) continue;
    const int32_t s = seq[size_t(t)], p = pos[size_t(t)];
    const int64_t block = indices[size_t(indptr[size_t(s)] + p / bs)];
    for (int32_t g = 0; g < kv_heads; ++g) {
      const int64_t off = ((block * kv_heads + g) * bs + p % bs) * head_dim;
      for (int32_t i = 0; i < head_dim; ++i) {
        written[size_t(off + i)] = true;
        want_k.push_back(row[size_t(q_dim + g * head_dim + i)]);
        got_k_vals.push_back(read_kv(got_k, off + i, dtype, k_scale));
        want_v.push_back(row[size_t(q_dim + kv_dim + g * head_dim + i)] +
                         vb[size_t(g * head_dim + i)]);
        got_v_vals.push_back(read_kv(got_v, off + i, dtype, v_scale));
      }
    }
  }
  for (int64_t i = 0; i < entries; ++i) {
    if (!written[size_t(i)] &&
        (read_kv(got_k, i, dtype, 1) != 0 || read_kv(got_v, i, dtype, 1) != 0)) {
      untouched = false;
    }
  }
  const std::string tag = " hd " + std::to_string(head_dim) +
                          (interleaved ? " interleaved" : " rotate-half") +
                          (dtype == KvDtype::kFp8E4m3 ? " fp8" : " bf16");
  const Tolerance kv_tol = dtype == KvDtype::kFp8E4m3 ? kFp8Tol : kBf16Tol;
  report.compare("rope_kv_write q" + tag, got_q, want_q, kBf16Tol);
  report.compare("rope_kv_write k" + tag, got_k_vals, want_k, kv_tol);
  report.compare("rope_kv_write v" + tag, got_v_vals, want_v, kv_tol);
  report.expect("rope_kv_write writes only its slots" + tag, untouched);
}

}  // namespace

void run_elementwise_tests(Report& report) {
  embedding_test(report);
  rms_norm_test(report, 2048, false);
  rms_norm_test(report, 4099, false);
  rms_norm_test(report, 2048, true);
  silu_mul_test(report);
  for (int32_t hd : {64, 128}) {
    for (RopeLayout layout : {RopeLayout::kRotateHalf, RopeLayout::kInterleaved}) {
      rope_kv_write_test(report, hd, layout, KvDtype::kBf16);
    }
    rope_kv_write_test(report, hd, RopeLayout::kRotateHalf, KvDtype::kFp8E4m3);
  }
}

}  // namespace llm::kernels::testing
