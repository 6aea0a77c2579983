// Prices the steps of one deployment exactly as step_time_ns does, bit for bit, but faster for a
// long replay: the deployment is checked once (at the first step, so a bad one still throws then),
// and the two GEMM sums that need pow (every layer's linear layers over the step's new tokens,
// the LM head over its sampled positions) are remembered per token count, since a replay meets
// the same counts again and again. Deterministic: a remembered value is the one computed.
// Thread-safety: none (the memo fills as it goes); one per SimBackend.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/sim/cost_model.h"

namespace llm {

class StepPricer {
 public:
  explicit StepPricer(const Deployment& deployment) : deployment_(&deployment) {}

  // step_time_ns(deployment, batch), the same value and the same exceptions. The deployment must
  // outlive the pricer and not change.
  Nanos step_time_ns(const BatchCost& batch);

 private:
  // The value of compute(count) remembered in memo[count] (counts up to kMaxRemembered).
  template <typename Compute>
  static double remembered(std::vector<double>& memo, int64_t count, Compute&& compute);

  static constexpr int64_t kMaxRemembered = 1 << 20;

  const Deployment* deployment_;
  bool checked_ = false;
  std::vector<double> layer_gemms_;  // by new tokens; NaN: not yet computed
  std::vector<double> lm_head_;      // by sampled positions
};

}  // namespace llm
