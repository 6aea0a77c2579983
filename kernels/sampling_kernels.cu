// GPU sampling (sampling.h): one block of kThreads per row. Candidates are ordered by a 64-bit
// key, (logit as an ordered integer) << 32 | (~id), so a larger key is more probable and ties go
// to the lower id, as in backends/cpu/sampler.cpp. The top-k threshold is a radix select on that
// key (by count), the top-p threshold a radix walk on it (by probability mass), and the draw a
// block-wide prefix sum in token-id order.
#include <cfloat>

#include "kernels/sampling.h"

namespace llm::kernels {
namespace {

constexpr int kThreads = 1024;
constexpr double kGreedyTemperature = 1e-5;  // backends/cpu/sampler.h

__device__ __forceinline__ uint64_t order_key(float logit, int32_t id) {
  uint32_t u = __float_as_uint(logit);
  u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
  return (static_cast<uint64_t>(u) << 32) | (0xffffffffu - static_cast<uint32_t>(id));
}

__device__ __forceinline__ int32_t key_id(uint64_t key) {
  return static_cast<int32_t>(0xffffffffu - static_cast<uint32_t>(key));
}

// core/rng.h: mix64, hash_combine and Rng(seed).uniform() (one SplitMix64 step).
__device__ __forceinline__ uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

__device__ __forceinline__ double draw_uniform(uint64_t seed, uint64_t counter) {
  const uint64_t state = mix64(seed ^ mix64(counter));  // hash_combine(seed, counter)
  return static_cast<double>(mix64(state) >> 11) * 0x1.0p-53;
}

__device__ uint64_t block_max_u64(uint64_t x, uint64_t* scratch) {
  for (int o = 16; o > 0; o >>= 1) {
    const uint64_t y = __shfl_xor_sync(0xffffffffu, x, o);
    x = y > x ? y : x;
  }
  __syncthreads();
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = x;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) x = scratch[w] > x ? scratch[w] : x;
    scratch[0] = x;
  }
  __syncthreads();
  const uint64_t r = scratch[0];
  __syncthreads();
  return r;
}

__device__ double block_sum_f64(double x, double* scratch) {
  for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
  __syncthreads();
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = x;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w) x += scratch[w];
    scratch[0] = x;
  }
  __syncthreads();
  const double r = scratch[0];
  __syncthreads();
  return r;
}

struct Shared {
  uint64_t u64[kThreads / 32];
  double f64[kThreads];  // reductions, then the per-thread chunk sums of the draw
  unsigned int count[256];
  double mass[256];
  uint64_t prefix;
  int found;
};

// The smallest key among the k largest (k < vocab).
__device__ uint64_t top_k_threshold(const float* logits, int32_t vocab, int32_t k, Shared& sh) {
  uint64_t prefix = 0, mask = 0;
  unsigned int remaining = static_cast<unsigned int>(k);
  for (int shift = 56; shift >= 0; shift -= 8) {
    for (int b = threadIdx.x; b < 256; b += kThreads) sh.count[b] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < vocab; i += kThreads) {
      const uint64_t key = order_key(logits[i], i);
      if ((key & mask) == prefix) atomicAdd(&sh.count[(key >> shift) & 0xff], 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int b = 255; b >= 0; --b) {
        if (sh.count[b] >= remaining) {
          sh.prefix = prefix | (static_cast<uint64_t>(b) << shift);
          break;
        }
        remaining -= sh.count[b];
      }
    }
    __syncthreads();
    prefix = sh.prefix;
    mask |= 0xffull << shift;
    __syncthreads();
  }
  return prefix;
}

// The key of the least probable token top-p keeps among those with prob > 0 in p: the token
// whose more probable tokens hold mass < target and which brings the mass to >= target. Returns
// 0 (keep all) when the mass never reaches target.
__device__ uint64_t top_p_threshold(const float* logits, const double* p, int32_t vocab,
                                    double target, Shared& sh) {
  uint64_t prefix = 0, mask = 0;
  double above = 0;
  for (int shift = 56; shift >= 0; shift -= 8) {
    for (int b = threadIdx.x; b < 256; b += kThreads) sh.mass[b] = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < vocab; i += kThreads) {
      if (p[i] <= 0) continue;
      const uint64_t key = order_key(logits[i], i);
      if ((key & mask) == prefix) atomicAdd(&sh.mass[(key >> shift) & 0xff], p[i]);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      sh.found = 0;
      for (int b = 255; b >= 0; --b) {
        if (above + sh.mass[b] >= target && sh.mass[b] > 0) {
          sh.prefix = prefix | (static_cast<uint64_t>(b) << shift);
          sh.found = 1;
          break;
        }
        above += sh.mass[b];
      }
    }
    __syncthreads();
    if (!sh.found) return 0;
    prefix = sh.prefix;
    mask |= 0xffull << shift;
    __syncthreads();
  }
  return prefix;
}

__global__ void __launch_bounds__(kThreads)
    sample_kernel(const float* logits_all, const SamplingRow* params, int32_t vocab,
                  double* workspace, int32_t* tokens) {
  __shared__ Shared sh;
  const int r = blockIdx.x;
  const float* logits = logits_all + static_cast<int64_t>(r) * vocab;
  double* p = workspace + static_cast<int64_t>(r) * vocab;
  const SamplingRow q = params[r];
  uint64_t best = 0;
  for (int i = threadIdx.x; i < vocab; i += kThreads) {
    const uint64_t key = order_key(logits[i], i);
    best = key > best ? key : best;
  }
  best = block_max_u64(best, sh.u64);
  if (q.temperature < kGreedyTemperature) {
    if (threadIdx.x == 0) tokens[r] = key_id(best);
    return;
  }
  const double t = q.temperature;
  const double max_logit = logits[key_id(best)];
  const bool top_k = q.top_k > 0 && q.top_k < vocab;
  const uint64_t k_cut = top_k ? top_k_threshold(logits, vocab, q.top_k, sh) : 0;
  double sum = 0;
  for (int i = threadIdx.x; i < vocab; i += kThreads) {
    const bool kept = order_key(logits[i], i) >= k_cut;
    p[i] = kept ? exp((static_cast<double>(logits[i]) - max_logit) / t) : 0.0;
    sum += p[i];
  }
  __syncthreads();
  sum = block_sum_f64(sum, sh.f64);
  if (q.top_p < 1.0) {
    const uint64_t p_cut = top_p_threshold(logits, p, vocab, q.top_p * sum, sh);
    sum = 0;
    for (int i = threadIdx.x; i < vocab; i += kThreads) {
      if (order_key(logits[i], i) < p_cut) p[i] = 0.0;
      sum += p[i];
    }
    __syncthreads();
    sum = block_sum_f64(sum, sh.f64);
  }
  // The draw: the first id in id order whose cumulative mass exceeds u * sum.
  const double target = draw_uniform(q.seed, q.counter) * sum;
  const int chunk = (vocab + kThreads - 1) / kThreads;
  const int lo = threadIdx.x * chunk, hi = min(vocab, lo + chunk);
  double mine = 0;
  int last_kept = -1;
  for (int i = lo; i < hi; ++i) {
    mine += p[i];
    if (p[i] > 0) last_kept = i;
  }
  sh.f64[threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    double run = 0;
    for (int w = 0; w < kThreads; ++w) {
      const double v = sh.f64[w];
      sh.f64[w] = run;
      run += v;
    }
    sh.found = 0;
  }
  __syncthreads();
  const double before = sh.f64[threadIdx.x];
  if (before <= target && target < before + mine) {
    double cdf = before;
    for (int i = lo; i < hi; ++i) {
      cdf += p[i];
      if (target < cdf) {
        tokens[r] = i;
        sh.found = 1;
        break;
      }
    }
  }
  __syncthreads();
  if (sh.found) return;
  // Rounding left target at or past the total: the last kept token (the CPU's d.back()).
  uint64_t last = static_cast<uint64_t>(last_kept + 1);
  last = block_max_u64(last, sh.u64);
  if (threadIdx.x == 0) tokens[r] = static_cast<int32_t>(last) - 1;
}

}  // namespace

cudaError_t sample_tokens(const float* logits, const SamplingRow* rows_params, int32_t rows,
                          int32_t vocab, double* workspace, int32_t* tokens, cudaStream_t stream) {
  if (vocab <= 0) return cudaErrorInvalidValue;
  if (rows <= 0) return cudaSuccess;
  sample_kernel<<<rows, kThreads, 0, stream>>>(logits, rows_params, vocab, workspace, tokens);
  return cudaGetLastError();
}

}  // namespace llm::kernels
