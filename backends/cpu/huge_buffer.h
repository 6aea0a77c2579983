// Large float buffers for the CPU backend's weights and KV cache: 64-byte aligned, and from 2 MiB
// up aligned to 2 MiB and marked for transparent huge pages (madvise; a hint the kernel may
// ignore). The backend streams these buffers every step: huge pages spare it the TLB misses and
// let the hardware prefetcher run past what would be a 4 KiB page's end. Memory is reserved, not
// touched: pages are committed when first written.
// Thread-safety: allocation and release are thread-safe; the contents are the caller's.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace llm {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using FloatBuffer = std::unique_ptr<float[], FreeDeleter>;

// n floats (at least one), uninitialised; throws std::bad_alloc when memory runs out.
FloatBuffer allocate_floats(size_t n);

}  // namespace llm
