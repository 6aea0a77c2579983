// Row-wise kernels of the decoder that need no neighbour data: the embedding gather, the fused
// residual add + RMSNorm and SiLU(gate) * up. bf16 buffers are passed as their raw bits
// (uint16_t); every kernel computes in fp32. Each launch wrapper returns the launch's error.
// The CPU function each kernel must match (kernels/reference/ holds the standard-library copy the
// GPU tests compare against):
// - embedding_gather: CpuBackend::Impl::gather's copy of embedding rows (exact: a bf16 table
//   widened to fp32).
// - add_rms_norm: backends/cpu/vector_ops.h add_in_place then rms_norm: out = w * (x /
// sqrt(mean(x^2)
//   + eps)), rounded to bf16 (tolerance: bf16 rounding of out, 1e-2 relative + 1e-2 absolute; the
//   fp32 residual within 1e-5 relative).
// - silu_mul: vector_ops.h silu_mul, g / (1 + exp(-g)) * u, rounded to bf16 (same tolerance).
// Thread-safety: launches on the caller's stream.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace llm::kernels {

// x[t] = table[ids[t]] widened to fp32, for t < tokens. table: [vocab][hidden] bf16.
cudaError_t embedding_gather(const int32_t* ids, const uint16_t* table, int32_t tokens,
                             int32_t hidden, float* x, cudaStream_t stream);

// For each output row r < rows, with i = row_index ? row_index[r] : r:
//   if delta: x[i] += delta[i] (fp32, in place);
//   out[r] = bf16(weight * x[i] / sqrt(mean(x[i]^2) + eps)).
// weight: fp32 [hidden]. row_index picks rows (the LM head's last positions); with it, only the
// picked rows of x get their delta.
cudaError_t add_rms_norm(float* x, const float* delta, const int32_t* row_index,
                         const float* weight, int32_t rows, int32_t hidden, float eps,
                         uint16_t* out, cudaStream_t stream);

// out[t][i] = silu(gate_up[t][i]) * gate_up[t][ffn + i] for i < ffn, rounded to bf16.
// gate_up: [tokens][2 * ffn] bf16 (the fused gate+up GEMM's output).
cudaError_t silu_mul(const uint16_t* gate_up, int32_t tokens, int32_t ffn, uint16_t* out,
                     cudaStream_t stream);

}  // namespace llm::kernels
