// The one symbol the CUDA backend module (libllm_cuda_backend.so, built from backends/cuda/device
// with cuBLAS and the CUDA runtime) exports, and the table of entry points it returns. llmserve
// and llmsim load the module with dlopen() only when --backend cuda asks for it
// (backends/cuda/loader), so that their start-up does not load cuBLAS.
// The module passes C++ objects (Request, ModelWeights, Backend) across: it must come from the
// same build as the program that loads it, which `build` (core/build_info.h's version string)
// and `layout` check before anything else is called.
// Thread-safety: the table is immutable; its functions are those of backends/cuda/cuda_backend.h.
#pragma once

#include <cstdint>
#include <memory>

#include "backends/cuda/cuda_backend.h"

namespace llm {

inline constexpr const char* kCudaModuleFile = "libllm_cuda_backend.so";
inline constexpr const char* kCudaModuleSymbol = "llm_cuda_module_api";
inline constexpr int32_t kCudaModuleAbi = 1;

// A fingerprint of the layouts the two sides share; a mismatch means another build.
inline constexpr uint64_t cuda_module_layout() {
  return (uint64_t{sizeof(Request)} << 40) ^ (uint64_t{sizeof(CudaBackendOptions)} << 24) ^
         (uint64_t{sizeof(ModelWeights)} << 12) ^ uint64_t { sizeof(CudaDeviceInfo) };
}

struct CudaModuleApi {
  int32_t abi = kCudaModuleAbi;
  uint64_t layout = cuda_module_layout();
  const char* build = "";  // version_string() of the build the module came from
  CudaDeviceInfo (*probe)() = nullptr;
  std::unique_ptr<Backend> (*make)(std::shared_ptr<const ModelWeights> weights,
                                   const CudaBackendOptions& options) = nullptr;
};

}  // namespace llm

// Defined by the module: its table, valid for as long as the module stays loaded.
extern "C" const llm::CudaModuleApi* llm_cuda_module_api();
