// The CUDA entry points of a build without CUDA (-DLLM_ENABLE_CUDA=OFF, or no nvcc at configure
// time): no device is ever usable, and asking for a backend says why.
#include <stdexcept>

#include "backends/cuda/cuda_backend.h"

namespace llm {

namespace {
constexpr const char* kNoCuda =
    "this build has no CUDA support (configured with -DLLM_ENABLE_CUDA=OFF or without nvcc)";
}

CudaDeviceInfo probe_cuda_device() {
  CudaDeviceInfo info;
  info.problem = kNoCuda;
  return info;
}

std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const ModelWeights>,
                                           const CudaBackendOptions&) {
  throw std::runtime_error(kNoCuda);
}

}  // namespace llm
