// Error checks for the CUDA backend's runtime and cuBLAS calls: a failing call throws
// std::runtime_error naming the call and the error (the backend cannot go on after one).
// Thread-safety: pure functions.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace llm::cuda_detail {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    throw std::runtime_error(std::string("cuda backend: ") + what + ": " + cudaGetErrorString(e));
  }
}

inline void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuda backend: ") + what + ": cuBLAS status " +
                             std::to_string(static_cast<int>(s)));
  }
}

}  // namespace llm::cuda_detail

#define LLM_CUDA_CHECK(call) ::llm::cuda_detail::check((call), #call)
