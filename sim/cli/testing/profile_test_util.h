// A small valid engine profile for the llmsim command tests (calibrate's --facts, fidelity's and
// price-steps' --profile): a 1 ms step, a 100-token vocabulary, and the KV blocks and context the
// test needs. Header-only (sim/cli/testing/ is not built into a library).
// Thread-safety: a pure function.
#pragma once

#include <cstdint>

#include "backends/sim/engine_profile.h"

namespace llm::testing {

inline EngineProfile tiny_profile(int64_t num_gpu_blocks, int64_t max_model_len) {
  EngineProfile p;
  p.source = "test";
  p.model = "tiny";
  p.step.overhead_ns = 1e6;
  p.num_gpu_blocks = num_gpu_blocks;
  p.max_model_len = max_model_len;
  p.vocab_size = 100;
  return p;
}

}  // namespace llm::testing
