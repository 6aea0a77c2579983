// The x86 target attributes the CPU backend's kernels are compiled with, so that one binary holds
// the portable, AVX2+FMA and AVX-512 paths and picks one at run time (matmul.h's simd_level()).
// LLM_HAVE_X86 is 1 where the intrinsics exist; LLM_AVX2 and LLM_AVX512 mark a function for
// those instruction sets (call it only when simd_level() says the CPU has them).
// Thread-safety: macros only.
#pragma once

#if defined(__x86_64__)
// GCC 12's AVX-512 reduction intrinsics (_mm512_reduce_add_ps) start from an "undefined" vector,
// which its own headers then report as used uninitialized (GCC bug 105593): a false positive.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define LLM_HAVE_X86 1
#define LLM_AVX2 __attribute__((target("avx2,fma")))
#define LLM_AVX512 __attribute__((target("avx512f,avx2,fma")))
#else
#define LLM_HAVE_X86 0
#endif
