// Batch-invariant fp32 matrix products for the CPU backend. Every output value is one dot product
// over K in a fixed order: eight lanes, lane l summing the products k = l, l+8, l+16, ... with
// FMA in increasing k, then a fixed tree of horizontal adds. That order depends on nothing but K,
// so a row's result is bit-identical whatever the other rows of the batch (M), the tiling, the
// chunking over threads or the thread count. Blocking over M and N only reuses cached data.
// The path is picked at run time: AVX-512 (sixteen lanes, then lanes l and l+8 added before the
// same tree), else AVX2+FMA, else portable code with the eight lanes and tree of the AVX2 path
// (separate multiply and add). The paths' bits differ from each other; each is invariant.
// Thread-safety: the functions are pure apart from writing their outputs; force_simd_level is for
// tests and must not race with running kernels.
#pragma once

#include <cstdint>
#include <span>

namespace llm {

class ThreadPool;

enum class SimdLevel { kPortable, kAvx2Fma, kAvx512 };

SimdLevel simd_level();              // the path in use (the best this CPU supports by default)
const char* simd_name(SimdLevel l);  // "Portable", "Avx2Fma", "Avx512"
void force_simd_level(SimdLevel l);  // tests: falls back to the best supported level below l

// The dot product of a and b (length k) in the fixed order above.
float dot(const float* a, const float* b, int64_t k);

// One weight matrix of a product: w is row-major [n][k] (a row per output, Hugging Face layout),
// bias [n] or null; out[i * ldo + j] = dot(x row i, w row j) + bias[j].
struct MatmulPart {
  const float* w = nullptr;
  int64_t n = 0;
  const float* bias = nullptr;
  float* out = nullptr;
  int64_t ldo = 0;
};

// Computes every part for the m rows of x (row-major [m][k]) with one parallel loop over output
// columns (pool may be null: the calling thread does everything).
void matmul(ThreadPool* pool, const float* x, int64_t m, int64_t k,
            std::span<const MatmulPart> parts);

// SwiGLU's first half in one parallel loop: out[i * ldo + j] = silu(dot(x row i, gate row j)) *
// dot(x row i, up row j) for the m rows of x and the n rows of gate and up ([n][k] each). Each task
// computes a block of columns of both products (the dot products exactly as matmul does) and
// combines them while they are in cache, with vector_ops.h's silu_mul: the same bits as matmul of
// the two parts followed by silu_mul.
void matmul_swiglu(ThreadPool* pool, const float* x, int64_t m, int64_t k, const float* gate,
                   const float* up, int64_t n, float* out, int64_t ldo);

}  // namespace llm
