// The fit of one card's GPU step-model coefficients (backends/sim/gpu_step_model.h) to the
// published measurements of that card, in stages, each fitting a few coefficients to the
// samples that isolate them with the rest held:
//   gemm               kernel cost, weight streaming rate, bf16 GEMM rate, sharpness
//   fp8 gemm           FP8 GEMM rate and the activation-quantization kernel
//   elementwise        the norms', activation's and rotary's speed
//   decode attention   kernel cost, per-sequence cost, KV read rate
//   prefill attention  kernel cost, per-token-head cost, causal attention rate
//   mixed attention    decodes beside a prefill chunk: per-sequence cost, KV read rate (a card
//                      without such samples prices them as its decode kernel)
//   all-reduce         latency, latency per doubling of GPUs, bus bandwidth
//   sampler            per sampled sequence (slope of the sampler's time)
//   runs               the fixed costs per step, per layer and per sequence, from whole runs'
//                      mean step times with every kernel above priced
// A stage without samples keeps the prior's values (a card derived from another, or the
// datasheet's), and says so.
// Thread-safety: pure functions of their arguments.
#pragma once

#include <string>
#include <vector>

#include "backends/sim/gpu_step_model.h"
#include "calibrate/gpu_fit/log_fit.h"
#include "calibrate/gpu_fit/op_samples.h"
#include "calibrate/gpu_fit/run_stages.h"

namespace llm {

struct GroupResidual {
  std::string group;
  ErrorSummary errors;
};

struct StageResidual {
  std::string stage;         // "gemm", "runs", ...
  std::string coefficients;  // which it fitted ("" for a check)
  ErrorSummary errors;       // over the kept samples
  size_t trimmed = 0;        // samples set aside as outliers
  std::vector<GroupResidual> groups;
};

struct CardFit {
  GpuStepCoefficients coefficients;
  std::vector<StageResidual> stages;
  std::vector<std::string> unfitted;  // stages without samples: the prior's values kept
};

// `per_layer_fixed_ns` >= 0 fixes per_layer_ns instead of fitting it with the runs (a card whose
// runs are all of one model cannot tell a layer's cost from a step's). Without samples of a
// prefill chunk's cached-prefix read, its rate takes `attention_reference`'s ratio to its
// kv_bytes_per_s (when given); without samples of decodes beside a prefill, they cost as in the
// decode kernel.
// Samples marked check_only are priced after the fit and reported, not fitted.
CardFit fit_card(const GpuStepCoefficients& prior, const std::vector<OpSample>& ops,
                 const std::vector<StageSample>& runs,
                 const std::vector<std::pair<double, double>>& sampler, double per_layer_fixed_ns,
                 const GpuStepCoefficients* attention_reference);

// The model's mean step time of a run stage under `c`.
double predict_stage_ns(const GpuStepCoefficients& c, const StageSample& s);

}  // namespace llm
