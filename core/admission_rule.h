// vLLM's admission rule (AsyncLLM.check_admission in vllm/v1/engine/async_llm.py, vLLM 0.29+):
// with --max-num-queued-reqs a request is refused when the sequences already unfinished (waiting
// or running, a request with n > 1 counting n) plus its own n would exceed the cap; with
// --max-num-queued-tokens when the prompt tokens of unfinished sequences still in prefill (no
// token yet) are at or above the cap, the new request's own tokens not counted. The request cap
// is checked first. Both are refusals with 503 (QueueOverflowError, MaxQueuedTokensError).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>

#include "core/vllm_metrics.h"

namespace llm {

struct AdmissionCaps {
  int64_t max_num_queued_reqs = -1;    // -1: no cap (vLLM's None)
  int64_t max_num_queued_tokens = -1;  // -1: no cap
};

// What the server holds when a request arrives (all data-parallel engines together).
struct AdmissionLoad {
  int64_t unfinished_sequences = 0;  // waiting + running (+ admitted, not yet submitted)
  int64_t prefill_tokens = 0;        // prompt tokens of unfinished sequences with no token yet
};

// The cap that refuses a request of `n` sequences, or nullopt when it is admitted.
std::optional<AdmissionRejection> check_admission(const AdmissionCaps& caps,
                                                  const AdmissionLoad& load, int64_t n);

// vLLM's 503 messages (vllm/exceptions.py).
const char* admission_rejection_message(AdmissionRejection reason);

}  // namespace llm
