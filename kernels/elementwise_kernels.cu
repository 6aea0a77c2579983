// The decoder's row-wise kernels (elementwise.h) and RoPE fused with the KV write
// (rope_kv_write.h), in one translation unit to keep the CUDA build short.
#include "kernels/elementwise.h"
#include "kernels/kv_access.cuh"
#include "kernels/rope_kv_write.h"

namespace llm::kernels {
namespace {

using detail::bf16_to_float;
using detail::float_to_bf16;

constexpr int kRowThreads = 256;

__global__ void embedding_gather_kernel(const int32_t* ids, const uint16_t* table, int32_t hidden,
                                        float* x) {
  const int64_t t = blockIdx.x;
  const uint16_t* row = table + static_cast<int64_t>(ids[t]) * hidden;
  for (int i = threadIdx.x; i < hidden; i += blockDim.x) x[t * hidden + i] = bf16_to_float(row[i]);
}

__global__ void add_rms_norm_kernel(float* x, const float* delta, const int32_t* row_index,
                                    const float* weight, int32_t hidden, float eps, uint16_t* out) {
  __shared__ float scratch[32];
  const int64_t r = blockIdx.x;
  const int64_t i = row_index ? row_index[r] : r;
  float* xr = x + i * hidden;
  float sum_sq = 0.0f;
  for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
    float v = xr[j];
    if (delta) {
      v += delta[i * hidden + j];
      xr[j] = v;
    }
    sum_sq += v * v;
  }
  sum_sq = detail::block_sum(sum_sq, scratch);
  const float inv = 1.0f / sqrtf(sum_sq / static_cast<float>(hidden) + eps);
  for (int j = threadIdx.x; j < hidden; j += blockDim.x) {
    out[r * hidden + j] = float_to_bf16(weight[j] * (xr[j] * inv));
  }
}

__global__ void silu_mul_kernel(const uint16_t* gate_up, int32_t ffn, uint16_t* out) {
  const int64_t t = blockIdx.x;
  const uint16_t* row = gate_up + t * 2 * ffn;
  for (int i = threadIdx.x; i < ffn; i += blockDim.x) {
    const float g = bf16_to_float(row[i]);
    const float u = bf16_to_float(row[ffn + i]);
    out[t * ffn + i] = float_to_bf16(g / (1.0f + expf(-g)) * u);
  }
}

// Dimension indices of pair p (< head_dim / 2) within a head.
__device__ __forceinline__ void rope_pair(RopeLayout layout, int p, int half, int* a, int* b) {
  if (layout == RopeLayout::kRotateHalf) {
    *a = p;
    *b = p + half;
  } else {
    *a = 2 * p;
    *b = 2 * p + 1;
  }
}

__global__ void rope_kv_write_kernel(RopeKvWriteArgs a) {
  const int64_t t = blockIdx.x;
  const int hd = a.kv.head_dim, half = hd / 2;
  const int q_dim = a.q_heads * hd, kv_dim = a.kv.kv_heads * hd;
  uint16_t* row = a.qkv + t * a.row_stride;
  const int32_t seq = a.token_seq[t];
  const int64_t pos = a.token_pos[t];
  int64_t block = -1;
  if (seq >= 0) block = a.pages.indices[a.pages.indptr[seq] + pos / a.kv.block_size];
  const int64_t slot = pos % a.kv.block_size;
  // Rotations: q heads then k heads, one pair per thread step.
  const int pairs = (a.q_heads + a.kv.kv_heads) * half;
  for (int i = threadIdx.x; i < pairs; i += blockDim.x) {
    const int head = i / half, p = i % half;
    const double angle = static_cast<double>(pos) * a.inv_freq[p];
    const float c = static_cast<float>(cos(angle)), s = static_cast<float>(sin(angle));
    int da, db;
    rope_pair(a.layout, p, half, &da, &db);
    const bool is_q = head < a.q_heads;
    const int base = is_q ? head * hd : q_dim + (head - a.q_heads) * hd;
    const float* bias = is_q ? a.q_bias : a.k_bias;
    const int bias_base = is_q ? head * hd : (head - a.q_heads) * hd;
    float x1 = bf16_to_float(row[base + da]), x2 = bf16_to_float(row[base + db]);
    if (bias) {
      x1 += bias[bias_base + da];
      x2 += bias[bias_base + db];
    }
    const float y1 = x1 * c - x2 * s, y2 = x2 * c + x1 * s;
    if (is_q) {
      row[base + da] = float_to_bf16(y1);
      row[base + db] = float_to_bf16(y2);
    } else if (block >= 0) {
      const int64_t off = detail::kv_offset(a.kv, block, head - a.q_heads, slot);
      detail::store_kv(a.kv.k, off + da, y1, a.kv.dtype, a.kv.k_scale);
      detail::store_kv(a.kv.k, off + db, y2, a.kv.dtype, a.kv.k_scale);
    }
  }
  if (block < 0) return;
  for (int i = threadIdx.x; i < kv_dim; i += blockDim.x) {
    float v = bf16_to_float(row[q_dim + kv_dim + i]);
    if (a.v_bias) v += a.v_bias[i];
    const int64_t off = detail::kv_offset(a.kv, block, i / hd, slot) + i % hd;
    detail::store_kv(a.kv.v, off, v, a.kv.dtype, a.kv.v_scale);
  }
}

}  // namespace

cudaError_t embedding_gather(const int32_t* ids, const uint16_t* table, int32_t tokens,
                             int32_t hidden, float* x, cudaStream_t stream) {
  if (tokens <= 0) return cudaSuccess;
  embedding_gather_kernel<<<tokens, kRowThreads, 0, stream>>>(ids, table, hidden, x);
  return cudaGetLastError();
}

cudaError_t add_rms_norm(float* x, const float* delta, const int32_t* row_index,
                         const float* weight, int32_t rows, int32_t hidden, float eps,
                         uint16_t* out, cudaStream_t stream) {
  if (rows <= 0) return cudaSuccess;
  add_rms_norm_kernel<<<rows, kRowThreads * 2, 0, stream>>>(x, delta, row_index, weight, hidden,
                                                            eps, out);
  return cudaGetLastError();
}

cudaError_t silu_mul(const uint16_t* gate_up, int32_t tokens, int32_t ffn, uint16_t* out,
                     cudaStream_t stream) {
  if (tokens <= 0) return cudaSuccess;
  silu_mul_kernel<<<tokens, kRowThreads * 2, 0, stream>>>(gate_up, ffn, out);
  return cudaGetLastError();
}

cudaError_t rope_kv_write(const RopeKvWriteArgs& args, cudaStream_t stream) {
  if (args.kv.head_dim <= 0 || args.kv.head_dim % 2 != 0) return cudaErrorInvalidValue;
  if (args.tokens <= 0) return cudaSuccess;
  rope_kv_write_kernel<<<args.tokens, kRowThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace llm::kernels
