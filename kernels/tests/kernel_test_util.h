// What the GPU kernel tests share: device buffers, seeded test data, a tolerance check that
// prints one line per comparison, and the list of failures main() reports. No test framework: the
// GPU machine has none (docs/cuda.md).
// Thread-safety: single-threaded test code.
#pragma once

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/reference/kernel_reference.h"

namespace llm::kernels::testing {

// Throws with the call's text when a CUDA call fails.
inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#define KT_CUDA(call) ::llm::kernels::testing::check_cuda((call), #call)

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t n) : n_(n) {
    KT_CUDA(cudaMalloc(&ptr_, std::max<size_t>(n, 1) * sizeof(T)));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void upload(const std::vector<T>& host) {
    KT_CUDA(cudaMemcpy(ptr_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(n_);
    KT_CUDA(cudaDeviceSynchronize());
    KT_CUDA(cudaMemcpy(host.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  T* get() const { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  size_t n_;
};

// Seeded uniform numbers (SplitMix64), the same on every platform.
class TestRng {
 public:
  explicit TestRng(uint64_t seed) : state_(seed) {}
  uint64_t next() { return state_ = reference::ref_mix64(state_); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  float uniform(float lo, float hi) { return lo + static_cast<float>(uniform()) * (hi - lo); }
  int32_t below(int32_t n) { return static_cast<int32_t>(next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

// bf16 bits of n uniform values in [lo, hi).
inline std::vector<uint16_t> random_bf16(TestRng& rng, size_t n, float lo, float hi) {
  std::vector<uint16_t> v(n);
  for (uint16_t& x : v) x = reference::to_bf16(rng.uniform(lo, hi));
  return v;
}

struct Tolerance {
  double rtol;
  double atol;
};
inline constexpr Tolerance kBf16Tol{1e-2, 1e-2};  // outputs rounded to bf16
inline constexpr Tolerance kFp8Tol{7e-2, 3e-2};   // KV entries stored as fp8 e4m3
inline constexpr Tolerance kFp32Tol{1e-5, 1e-6};  // fp32 results (the residual stream)

// The test run's results: each compare() prints one line; failures are counted for main().
struct Report {
  int checks = 0;
  std::vector<std::string> failures;

  // |got - want| <= atol + rtol * |want| for every element (and the same length).
  bool compare(const std::string& name, const std::vector<float>& got,
               const std::vector<float>& want, Tolerance tol) {
    ++checks;
    double worst = 0;
    size_t worst_at = 0, bad = 0;
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
      const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
      const double excess = err - (tol.atol + tol.rtol * std::fabs(want[i]));
      if (!(excess <= 0)) ++bad;
      if (!(err <= worst)) {
        worst = err;
        worst_at = i;
      }
    }
    const bool ok = bad == 0 && got.size() == want.size();
    std::printf("%-4s %-58s max |err| %.3g at %zu (rtol %.0e atol %.0e)\n", ok ? "ok" : "FAIL",
                name.c_str(), worst, worst_at, tol.rtol, tol.atol);
    if (!ok) failures.push_back(name);
    return ok;
  }

  bool expect(const std::string& name, bool ok, const std::string& detail = "") {
    ++checks;
    std::printf("%-4s %-58s %s\n", ok ? "ok" : "FAIL", name.c_str(), detail.c_str());
    if (!ok) failures.push_back(name);
    return ok;
  }
};

inline std::vector<float> widen_bf16(const std::vector<uint16_t>& bits) {
  std::vector<float> v(bits.size());
  for (size_t i = 0; i < bits.size(); ++i) v[i] = reference::from_bf16(bits[i]);
  return v;
}

// The test groups (one file each).
void run_elementwise_tests(Report& report);
void run_attention_tests(Report& report);
void run_sampling_tests(Report& report);

}  // namespace llm::kernels::testing
