// Prices a real engine's logged steps (llmserve --step-log) with a fitted step model and groups
// the result by kind of step, so a profile's error can be traced to the steps it gets wrong:
// decode-only steps by batch size and by mean context, single-sequence prefills, mixed steps,
// and the host time between steps that no step model prices. The measured time of a step is its
// execute time plus its modelled time (a real backend models 0; a simulated one executes in ~0).
// Thread-safety: pure functions over plain values.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/sim/step_model.h"
#include "backends/sim/step_noise.h"
#include "backends/sim/step_record.h"

namespace llm {

// The group a step is counted in: "decode b=1", "decode b=2-4", ..., "prefill", "mixed".
std::string step_kind(const BatchCost& batch);
// Decode-only steps by mean context per sequence: "decode ctx<256", "decode ctx256-1023", ...;
// "" for a step that is not decode-only.
std::string decode_context_kind(const BatchCost& batch);

struct StepGroupPricing {
  std::string kind;
  int64_t steps = 0;
  double measured_p50_ms = 0;
  double predicted_p50_ms = 0;
  double error_p50 = 0;  // median of (predicted - measured) / measured over the group's steps
  double measured_total_s = 0;
  double predicted_total_s = 0;
  double total_error() const {  // (predicted - measured) / measured of the group's sums
    return measured_total_s > 0 ? predicted_total_s / measured_total_s - 1 : 0;
  }
};

struct StepPricing {
  std::vector<StepGroupPricing> by_kind;     // fixed order, empty groups left out
  std::vector<StepGroupPricing> by_context;  // decode-only steps
  StepGroupPricing all;
  // Gaps between consecutive steps of an engine shorter than gap_limit_ms: the host's own time
  // (scheduling, bookkeeping, output), which runs between every two steps of a busy engine.
  double gap_limit_ms = 0;
  int64_t short_gaps = 0;
  double short_gap_p50_ms = 0;
  double short_gap_total_s = 0;
};

// The default gap limit of price-steps, calibrate --step-log and fidelity: a gap between two steps
// shorter than this is host time of a busy engine, a longer one the engine waiting for work.
inline constexpr double kStepGapLimitMs = 5.0;

// Steps with engine == `engine` (or every engine when engine < 0). With `noise`, each step's price
// is the model's times a ratio drawn from it, as a replay draws them (seed 0, one draw per priced
// step in log order): group medians and sums are then what a replay would pay.
StepPricing price_steps(const std::vector<StepRecord>& steps, const FittedStepModel& model,
                        const StepTimeNoise* noise = nullptr, int64_t engine = -1,
                        double gap_limit_ms = kStepGapLimitMs);

// The two tables and the gap line as text.
std::string format_step_pricing(const StepPricing& pricing);

}  // namespace llm
