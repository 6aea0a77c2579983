// The deterministic choice of the requests that fail: the n-th generation request a server routes
// (n from 0) fails when a uniform draw from (seed, n) is below the failure rate, with the type a
// second draw picks among the configured ones. Counter-based (no generator state), so the same
// seed and the same request sequence give the same failures, whatever the threads.
// Thread-safety: a pure function.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "server/faults/failure_type.h"

namespace llm {

// `types` empty means all of them.
std::optional<FailureType> draw_failure(uint64_t seed, uint64_t n, double rate,
                                        const std::vector<FailureType>& types);

}  // namespace llm
