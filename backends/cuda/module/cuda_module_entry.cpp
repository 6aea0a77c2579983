// The CUDA backend module's exported entry point (backends/cuda/module/cuda_module_api.h): the
// device implementation of probe_cuda_device and make_cuda_backend (backends/cuda/device).
#include <string>

#include "backends/cuda/module/cuda_module_api.h"
#include "core/build_info.h"

extern "C" __attribute__((visibility("default"))) const llm::CudaModuleApi* llm_cuda_module_api() {
  static const std::string build = llm::version_string();
  static const llm::CudaModuleApi api{llm::kCudaModuleAbi, llm::cuda_module_layout(), build.c_str(),
                                      &llm::probe_cuda_device, &llm::make_cuda_backend};
  return &api;
}
