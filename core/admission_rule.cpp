#include "core/admission_rule.h"

namespace llm {

std::optional<AdmissionRejection> check_admission(const AdmissionCaps& caps,
                                                  const AdmissionLoad& load, int64_t n) {
  if (caps.max_num_queued_reqs >= 0 && load.unfinished_sequences + n > caps.max_num_queued_reqs) {
    return AdmissionRejection::kMaxNumQueuedReqs;
  }
  if (caps.max_num_queued_tokens >= 0 && load.prefill_tokens >= caps.max_num_queued_tokens) {
    return AdmissionRejection::kMaxNumQueuedTokens;
  }
  return std::nullopt;
}

const char* admission_rejection_message(AdmissionRejection reason) {
  return reason == AdmissionRejection::kMaxNumQueuedTokens
             ? "The engine has reached its prefill token backlog limit. Please try again later or "
               "on a different instance."
             : "The engine is currently busy and cannot accept new requests. Please try again "
               "later or on a different instance.";
}

}  // namespace llm
