// probe_cuda_device: whether this process can use a CUDA device, and which one.
#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_backend.h"

namespace llm {

CudaDeviceInfo probe_cuda_device() {
  CudaDeviceInfo info;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver) {
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    info.problem = driver == 0 ? "no NVIDIA driver found (no CUDA device on this machine)"
                               : "the NVIDIA driver (CUDA " + std::to_string(driver / 1000) + "." +
                                     std::to_string(driver % 1000 / 10) +
                                     ") is older than this build's CUDA runtime " +
                                     std::to_string(runtime / 1000) + "." +
                                     std::to_string(runtime % 1000 / 10);
    return info;
  }
  if (e != cudaSuccess || count == 0) {
    info.problem = std::string("no CUDA device: ") +
                   (e != cudaSuccess ? cudaGetErrorString(e) : "the driver reports 0 devices");
    return info;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
    info.problem = "cannot read the properties of CUDA device 0";
    return info;
  }
  info.name = prop.name;
  info.compute_capability = prop.major * 10 + prop.minor;
  if (info.compute_capability < 80) {
    info.problem = "CUDA device 0 (" + info.name + ") has compute capability " +
                   std::to_string(prop.major) + "." + std::to_string(prop.minor) +
                   "; the kernels are built for 8.0 (A100) and 9.0 (H100/H200)";
    return info;
  }
  size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    info.problem = "cannot read the memory of CUDA device 0";
    return info;
  }
  info.memory = {static_cast<int64_t>(total_bytes), static_cast<int64_t>(free_bytes)};
  info.usable = true;
  return info;
}

}  // namespace llm
