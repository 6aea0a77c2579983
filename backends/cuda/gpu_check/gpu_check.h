// cuda_gpu_check: the CUDA backend's checks and benchmarks on a real GPU (ci/gpu-check.sh runs
// it). `check` compares the backend with the CPU backend end to end; `bench` times decode and
// prefill steps on a generated Llama-3.2-1B-shaped model beside llmsim's H200 prediction.
// Without a usable device the program prints why and exits 77 (skipped).
// Thread-safety: single-threaded.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace llm {

struct GpuCheckReport {
  int checks = 0;
  std::vector<std::string> failures;
  bool expect(const std::string& name, bool ok, const std::string& detail = "") {
    ++checks;
    std::printf("%-4s %-48s %s\n", ok ? "ok" : "FAIL", name.c_str(), detail.c_str());
    std::fflush(stdout);
    if (!ok) failures.push_back(name);
    return ok;
  }
};

bool run_e2e_checks(GpuCheckReport& report);

struct BenchOptions {
  int decode_steps = 32;  // timed decode steps per batch size
  bool quick = false;     // a 4-layer model instead of 16 (a smoke run)
};
// Prints a markdown table (measured step time, tok/s, share of the HBM or bf16 roofline, llmsim's
// H200 prediction) to stdout.
void run_benchmarks(const BenchOptions& options);

}  // namespace llm
