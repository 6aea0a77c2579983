// prefetch_line(p): asks the CPU to bring the cache line holding p into its caches, a hint that
// changes no value (for the prefix cache's tables, megabytes read at random places).
// GCC 12 at -O2 deleted __builtin_prefetch in BlockPool (seen in the disassembly: the function
// was a bare ret), so x86-64 issues the instruction through volatile asm, which it keeps.
// Thread-safety: none needed (reads nothing, writes nothing).
#pragma once

namespace llm {

inline void prefetch_line(const void* p) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace llm
