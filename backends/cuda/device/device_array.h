// DeviceArray: one cudaMalloc'd array of T, freed on destruction; PinnedArray: page-locked host
// memory for the step's uploads and downloads (asynchronous copies need it). Both are CudaArray
// with the allocator of their memory.
// Thread-safety: none; owned by one backend.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "backends/cuda/device/cuda_check.h"

namespace llm {

// One array of T in memory that Memory allocates and frees, freed on destruction; move-only.
template <typename T, typename Memory>
class CudaArray {
 public:
  CudaArray() = default;
  explicit CudaArray(size_t n) : n_(n) {
    if (n > 0) LLM_CUDA_CHECK(Memory::allocate(reinterpret_cast<void**>(&ptr_), n * sizeof(T)));
  }
  ~CudaArray() {
    if (ptr_) Memory::free(ptr_);
  }
  CudaArray(CudaArray&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), n_(o.n_) {}
  CudaArray& operator=(CudaArray&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    return *this;
  }
  T* get() const { return ptr_; }
  size_t size() const { return n_; }

 private:
  T* ptr_ = nullptr;
  size_t n_ = 0;
};

struct DeviceMemory {
  static cudaError_t allocate(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
  static void free(void* p) { cudaFree(p); }
};
struct PinnedHostMemory {
  static cudaError_t allocate(void** p, size_t bytes) { return cudaMallocHost(p, bytes); }
  static void free(void* p) { cudaFreeHost(p); }
};

template <typename T>
using DeviceArray = CudaArray<T, DeviceMemory>;
template <typename T>
using PinnedArray = CudaArray<T, PinnedHostMemory>;

}  // namespace llm
