// cuda_gpu_check check | bench [--quick] [--decode-steps N]: see gpu_check.h. Exit 0 when every
// check passes, 1 on a failure, 2 on bad arguments, 77 without a usable CUDA device.
#include <cstdio>
#include <exception>
#include <string>

#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/gpu_check/gpu_check.h"

int main(int argc, char** argv) {
  using namespace llm;
  const std::string mode = argc > 1 ? argv[1] : "";
  BenchOptions bench;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") {
      bench.quick = true;
    } else if (a == "--decode-steps" && i + 1 < argc) {
      bench.decode_steps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "cuda_gpu_check: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (mode != "check" && mode != "bench") {
    std::fprintf(stderr, "usage: cuda_gpu_check check | bench [--quick] [--decode-steps N]\n");
    return 2;
  }
  const CudaDeviceInfo device = probe_cuda_device();
  if (!device.usable) {
    std::printf("cuda_gpu_check: %s: skipped\n", device.problem.c_str());
    return 77;
  }
  std::printf("cuda_gpu_check: %s (compute capability %d.%d), %.1f GiB free of %.1f GiB\n",
              device.name.c_str(), device.compute_capability / 10, device.compute_capability % 10,
              device.memory.free_bytes / 1073741824.0, device.memory.total_bytes / 1073741824.0);
  try {
    if (mode == "bench") {
      run_benchmarks(bench);
      return 0;
    }
    GpuCheckReport report;
    run_e2e_checks(report);
    std::printf("cuda_gpu_check: %d checks, %zu failed\n", report.checks, report.failures.size());
    return report.failures.empty() ? 0 : 1;
  } catch (const std::exception& e) {
    std::printf("FAIL cuda_gpu_check stopped: %s\n", e.what());
    return 1;
  }
}
