// Paged attention (paged_attention.h): the split kernel and the split-combining reduce.
#include <cfloat>

#include "kernels/kv_access.cuh"
#include "kernels/paged_attention.h"

namespace llm::kernels {
namespace {

using detail::bf16_to_float;
using detail::float_to_bf16;

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxGroup = 16;
constexpr int kMaxShared = 100 * 1024;  // bytes; Ampere and Hopper allow more than 48 KB per block

// Shared memory of one block: q[group][head_dim], scores[group][partition], max[group], sum[group].
size_t shared_bytes(int group, int head_dim, int partition) {
  return sizeof(float) * (static_cast<size_t>(group) * head_dim +
                          static_cast<size_t>(group) * partition + 2 * group);
}

// One (row, kv head, split). kDims: values per lane, ceil(head_dim / 32) rounded up to a power of
// two; lanes past head_dim hold zeros.
template <int kDims>
__global__ void __launch_bounds__(kThreads) attention_split_kernel(PagedAttentionArgs a) {
  const int head_dim = a.kv.head_dim;
  extern __shared__ float smem[];
  const int row = blockIdx.x, kv_head = blockIdx.y, split = blockIdx.z;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int group = a.q_heads / a.kv.kv_heads;
  const int P = a.partition;
  float* q_s = smem;
  float* scores = q_s + group * head_dim;
  float* max_s = scores + group * P;
  float* sum_s = max_s + group;

  const int seq = a.row_seq[row];
  if (seq < 0) return;  // a padding row of a captured decode graph
  const int ctx = a.row_pos[row] + 1;
  const int begin = split * P, end = min(ctx, begin + P), n = end - begin;
  const int q_head0 = kv_head * group;
  for (int i = threadIdx.x; i < group * head_dim; i += kThreads) {
    q_s[i] = bf16_to_float(a.q[static_cast<int64_t>(row) * a.q_stride + q_head0 * head_dim + i]);
  }
  __syncthreads();
  const int32_t* pages = a.pages.indices + a.pages.indptr[seq];
  const int bs = a.kv.block_size;

  // 1. Scores: one warp per position, each lane kDims consecutive dimensions.
  for (int j = warp; j < n; j += kWarps) {
    const int pos = begin + j;
    const int64_t off = detail::kv_offset(a.kv, pages[pos / bs], kv_head, pos % bs) + lane * kDims;
    float k[kDims];
#pragma unroll
    for (int d = 0; d < kDims; ++d) {
      k[d] = lane * kDims + d < head_dim
                 ? detail::load_kv(a.kv.k, off + d, a.kv.dtype, a.kv.k_scale)
                 : 0.0f;
    }
    for (int h = 0; h < group; ++h) {
      float s = 0.0f;
#pragma unroll
      for (int d = 0; d < kDims; ++d) {
        if (lane * kDims + d < head_dim) s += q_s[h * head_dim + lane * kDims + d] * k[d];
      }
      s = detail::warp_sum(s);
      if (lane == 0) scores[h * P + j] = s * a.scale;
    }
  }
  __syncthreads();

  // 2. Softmax within the split: one warp per q head.
  for (int h = warp; h < group; h += kWarps) {
    float m = -FLT_MAX;
    for (int j = lane; j < n; j += 32) m = fmaxf(m, scores[h * P + j]);
    m = detail::warp_max(m);
    float l = 0.0f;
    for (int j = lane; j < n; j += 32) {
      const float e = expf(scores[h * P + j] - m);
      scores[h * P + j] = e;
      l += e;
    }
    l = detail::warp_sum(l);
    if (lane == 0) {
      max_s[h] = m;
      sum_s[h] = l;
    }
  }
  __syncthreads();

  // 3. Weighted values: thread i takes (q head, dimension) pairs; neighbours read neighbouring
  // dimensions of one position.
  for (int i = threadIdx.x; i < group * head_dim; i += kThreads) {
    const int h = i / head_dim, d = i % head_dim;
    float acc = 0.0f;
    for (int j = 0; j < n; ++j) {
      const int pos = begin + j;
      const int64_t off = detail::kv_offset(a.kv, pages[pos / bs], kv_head, pos % bs) + d;
      acc += scores[h * P + j] * detail::load_kv(a.kv.v, off, a.kv.dtype, a.kv.v_scale);
    }
    const int q_head = q_head0 + h;
    const float l = sum_s[h];
    if (a.num_splits == 1) {
      a.out[(static_cast<int64_t>(row) * a.q_heads + q_head) * head_dim + d] =
          float_to_bf16(acc / l);
    } else {
      // Workspace: values [rows][q_heads][splits][head_dim], then max and sum
      // [rows][q_heads][splits].
      const int64_t entry = (static_cast<int64_t>(row) * a.q_heads + q_head) * a.num_splits + split;
      const int64_t entries = static_cast<int64_t>(a.rows) * a.q_heads * a.num_splits;
      a.workspace[entry * head_dim + d] = n > 0 ? acc / l : 0.0f;
      if (d == 0) {
        a.workspace[entries * head_dim + entry] = n > 0 ? max_s[h] : -FLT_MAX;
        a.workspace[entries * (head_dim + 1) + entry] = n > 0 ? l : 0.0f;
      }
    }
  }
}

// One (row, q head): out = sum_p w_p o_p / sum_p w_p, w_p = exp(m_p - max m) l_p.
__global__ void attention_reduce_kernel(PagedAttentionArgs a) {
  const int row = blockIdx.x, q_head = blockIdx.y, hd = a.kv.head_dim;
  if (a.row_seq[row] < 0) return;
  const int64_t entries = static_cast<int64_t>(a.rows) * a.q_heads * a.num_splits;
  const int64_t first = (static_cast<int64_t>(row) * a.q_heads + q_head) * a.num_splits;
  const float* maxes = a.workspace + entries * hd + first;
  const float* sums = a.workspace + entries * (hd + 1) + first;
  float m = -FLT_MAX;
  for (int p = 0; p < a.num_splits; ++p) {
    if (sums[p] > 0.0f) m = fmaxf(m, maxes[p]);
  }
  for (int d = threadIdx.x; d < hd; d += blockDim.x) {
    float num = 0.0f, den = 0.0f;
    for (int p = 0; p < a.num_splits; ++p) {
      if (sums[p] <= 0.0f) continue;
      const float w = expf(maxes[p] - m) * sums[p];
      num += w * a.workspace[(first + p) * hd + d];
      den += w;
    }
    a.out[(static_cast<int64_t>(row) * a.q_heads + q_head) * hd + d] = float_to_bf16(num / den);
  }
}

template <int kDims>
cudaError_t launch_split(const PagedAttentionArgs& a, cudaStream_t stream) {
  const int group = a.q_heads / a.kv.kv_heads;
  const size_t bytes = shared_bytes(group, a.kv.head_dim, a.partition);
  // The dynamic shared-memory limit, raised once per process (a thread-safe static).
  static const cudaError_t raised = cudaFuncSetAttribute(
      attention_split_kernel<kDims>, cudaFuncAttributeMaxDynamicSharedMemorySize, kMaxShared);
  if (raised != cudaSuccess) return raised;
  if (bytes > kMaxShared) return cudaErrorInvalidValue;
  const dim3 grid(a.rows, a.kv.kv_heads, a.num_splits);
  attention_split_kernel<kDims><<<grid, kThreads, bytes, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace

bool paged_attention_supports(int32_t head_dim, int32_t group_size) {
  return head_dim >= 1 && head_dim <= 256 && group_size >= 1 && group_size <= kMaxGroup;
}

int64_t paged_attention_workspace_floats(int32_t rows, int32_t q_heads, int32_t head_dim,
                                         int32_t num_splits) {
  if (num_splits <= 1) return 0;
  return static_cast<int64_t>(rows) * q_heads * num_splits * (head_dim + 2);
}

cudaError_t paged_attention(const PagedAttentionArgs& a, cudaStream_t stream) {
  if (a.kv.kv_heads <= 0 || a.q_heads % a.kv.kv_heads != 0) return cudaErrorInvalidValue;
  if (!paged_attention_supports(a.kv.head_dim, a.q_heads / a.kv.kv_heads)) {
    return cudaErrorInvalidValue;
  }
  if (a.num_splits < 1 || a.partition < 1 || (a.num_splits > 1 && !a.workspace)) {
    return cudaErrorInvalidValue;
  }
  if (a.rows <= 0) return cudaSuccess;
  cudaError_t e = cudaSuccess;
  const int32_t hd = a.kv.head_dim;
  if (hd <= 32) {
    e = launch_split<1>(a, stream);
  } else if (hd <= 64) {
    e = launch_split<2>(a, stream);
  } else if (hd <= 128) {
    e = launch_split<4>(a, stream);
  } else {
    e = launch_split<8>(a, stream);
  }
  if (e != cudaSuccess || a.num_splits == 1) return e;
  attention_reduce_kernel<<<dim3(a.rows, a.q_heads), 64, 0, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace llm::kernels
