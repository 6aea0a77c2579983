#include "backends/cpu/huge_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace llm {

FloatBuffer allocate_floats(size_t n) {
  constexpr size_t kHugePage = size_t{1} << 21;
  const size_t wanted = std::max<size_t>(n, 1) * sizeof(float);
  const size_t align = wanted >= kHugePage ? kHugePage : 64;
  const size_t bytes = (wanted + align - 1) / align * align;
  FloatBuffer buffer(static_cast<float*>(std::aligned_alloc(align, bytes)));
  if (!buffer) throw std::bad_alloc();
  if (align == kHugePage) madvise(buffer.get(), bytes, MADV_HUGEPAGE);  // a hint: errors ignored
  return buffer;
}

}  // namespace llm
