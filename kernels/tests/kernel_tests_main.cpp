// kernel_tests: every kernel of kernels/ against its CPU reference on the GPU. Exits 0 when all
// pass, 1 on a failure, 77 (ctest's SKIP_RETURN_CODE) when there is no usable CUDA device, so a
// machine without a GPU (CI) skips it instead of failing.
#include <cstdio>
#include <exception>

#include "kernels/tests/kernel_test_util.h"

int main() {
  using namespace llm::kernels::testing;
  int devices = 0;
  const cudaError_t e = cudaGetDeviceCount(&devices);
  if (e != cudaSuccess || devices == 0) {
    std::printf("kernel_tests: no CUDA device: skipped (%s)\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("kernel_tests: %s, compute capability %d.%d, %d SMs\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount);
  Report report;
  try {
    run_elementwise_tests(report);
    run_attention_tests(report);
    run_sampling_tests(report);
  } catch (const std::exception& ex) {
    std::printf("FAIL kernel_tests stopped: %s\n", ex.what());
    return 1;
  }
  std::printf("kernel_tests: %d checks, %zu failed\n", report.checks, report.failures.size());
  for (const auto& f : report.failures) std::printf("  failed: %s\n", f.c_str());
  return report.failures.empty() ? 0 : 1;
}
