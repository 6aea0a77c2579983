// Device helpers shared by the kernels' translation units: bf16 and fp8 e4m3 loads and stores of
// KV entries, and warp/block reductions. Private to kernels/.
// Thread-safety: device functions.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "kernels/kv_cache_layout.h"

namespace llm::kernels::detail {

__device__ __forceinline__ float bf16_to_float(uint16_t bits) {
  return __uint_as_float(static_cast<uint32_t>(bits) << 16);
}

__device__ __forceinline__ uint16_t float_to_bf16(float x) {
  return __bfloat16_as_ushort(__float2bfloat16_rn(x));
}

// One KV entry at index i of a cache tensor of dtype, scaled for fp8.
__device__ __forceinline__ float load_kv(const void* base, int64_t i, KvDtype dtype, float scale) {
  if (dtype == KvDtype::kBf16) return bf16_to_float(static_cast<const uint16_t*>(base)[i]);
  __nv_fp8_e4m3 code;
  code.__x = static_cast<const __nv_fp8_storage_t*>(base)[i];
  return static_cast<float>(code) * scale;
}

__device__ __forceinline__ void store_kv(void* base, int64_t i, float x, KvDtype dtype,
                                         float scale) {
  if (dtype == KvDtype::kBf16) {
    static_cast<uint16_t*>(base)[i] = float_to_bf16(x);
  } else {
    static_cast<__nv_fp8_storage_t*>(base)[i] = __nv_fp8_e4m3(x / scale).__x;
  }
}

// Offset of (block, head, slot)'s first entry in one layer's K or V tensor.
__device__ __forceinline__ int64_t kv_offset(const PagedKvLayer& kv, int64_t block, int64_t head,
                                             int64_t slot) {
  return ((block * kv.kv_heads + head) * kv.block_size + slot) * kv.head_dim;
}

__device__ __forceinline__ float warp_sum(float x) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  return x;
}

__device__ __forceinline__ float warp_max(float x) {
  for (int o = 16; o > 0; o >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, o));
  return x;
}

// Sum over the block (blockDim.x a multiple of 32, at most 1024); every thread gets the result.
// scratch: 32 floats of shared memory.
__device__ __forceinline__ float block_sum(float x, float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  x = warp_sum(x);
  __syncthreads();
  if (lane == 0) scratch[warp] = x;
  __syncthreads();
  x = lane < warps ? scratch[lane] : 0.0f;
  return warp_sum(x);
}

}  // namespace llm::kernels::detail
