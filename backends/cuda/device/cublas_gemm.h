// The backend's matmuls through cuBLAS: y[tokens][out] = x[tokens][in] . W^T for a row-major
// [out][in] bf16 weight, bf16 inputs, fp32 accumulation (cublasGemmEx with CUDA_R_16BF and
// CUBLAS_COMPUTE_32F), output in bf16 or fp32. In cuBLAS's column-major terms: C (out x tokens) =
// op(A) B with A = W seen as an in x out matrix, transposed.
// Thread-safety: uses the caller's handle (bound to the caller's stream).
#pragma once

#include <cublas_v2.h>

#include <cstdint>

namespace llm {

enum class GemmOut { kBf16, kFp32 };

void gemm_bf16(cublasHandle_t handle, const uint16_t* x, const uint16_t* weight, int64_t tokens,
               int64_t in, int64_t out, void* y, GemmOut y_type);

}  // namespace llm
