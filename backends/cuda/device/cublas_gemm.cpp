#include "backends/cuda/device/cublas_gemm.h"

#include "backends/cuda/device/cuda_check.h"

namespace llm {

void gemm_bf16(cublasHandle_t handle, const uint16_t* x, const uint16_t* weight, int64_t tokens,
               int64_t in, int64_t out, void* y, GemmOut y_type) {
  if (tokens <= 0) return;
  const float alpha = 1.0f, beta = 0.0f;
  LLM_CUDA_CHECK(cublasGemmEx(
      handle, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(out), static_cast<int>(tokens),
      static_cast<int>(in), &alpha, weight, CUDA_R_16BF, static_cast<int>(in), x, CUDA_R_16BF,
      static_cast<int>(in), &beta, y, y_type == GemmOut::kBf16 ? CUDA_R_16BF : CUDA_R_32F,
      static_cast<int>(out), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

}  // namespace llm
