// Batch-invariant fp32 matrix products for the CPU backend, over weights packed by
// packed_matrix.h. Every output value is one chain of fused multiply-adds over k in increasing
// order, starting from zero (then the bias is added): out = fma(x[k-1], w[k-1], ... fma(x[0],
// w[0], 0)). That order depends on nothing at all, so a row's result is bit-identical whatever the
// other rows of the batch (M), the tiling, the chunking over threads or the thread count, and the
// three paths (AVX-512, AVX2+FMA, portable std::fma) give the same bits. Tiles of up to 16 rows
// share each weight load; blocking over M and N only reuses cached data.
// Thread-safety: the functions are pure apart from writing their outputs; force_simd_level is for
// tests and must not race with running kernels.
#pragma once

#include <cstdint>
#include <span>

#include "backends/cpu/packed_matrix.h"

namespace llm {

class ThreadPool;

enum class SimdLevel { kPortable, kAvx2Fma, kAvx512 };

SimdLevel simd_level();              // the path in use (the best this CPU supports by default)
const char* simd_name(SimdLevel l);  // "Portable", "Avx2Fma", "Avx512"
void force_simd_level(SimdLevel l);  // tests: falls back to the best supported level below l

// A dot product of a and b (length k): eight (AVX-512: sixteen) lanes summed in a fixed tree, for
// the vector ops (rms_norm); not the matmul's order.
float dot(const float* a, const float* b, int64_t k);

// One weight matrix of a product: out[i * ldo + j] = sum over q of x[i][q] * w[j][q] + bias[j]
// for the w->n outputs j; bias [w->n] or null.
struct MatmulPart {
  const PackedMatrix* w = nullptr;
  const float* bias = nullptr;
  float* out = nullptr;
  int64_t ldo = 0;
};

// Computes every part (each with w->k == k) for the m rows of x (row-major, row stride ldx >= k)
// with one parallel loop over blocks of output columns and rows (pool may be null: the calling
// thread does everything).
void matmul(ThreadPool* pool, const float* x, int64_t ldx, int64_t m, int64_t k,
            std::span<const MatmulPart> parts);

// SwiGLU's first half in one parallel loop: out[i * ldo + j] = silu(gate_i,j) * up_i,j for the m
// rows of x, where gate and up are products as matmul computes them (gate->n == up->n). Each task
// computes a block of columns of both and combines them while they are in cache, with
// vector_ops.h's silu_mul: the same bits as matmul of the two parts followed by silu_mul.
void matmul_swiglu(ThreadPool* pool, const float* x, int64_t ldx, int64_t m, int64_t k,
                   const PackedMatrix& gate, const PackedMatrix& up, float* out, int64_t ldo);

}  // namespace llm
