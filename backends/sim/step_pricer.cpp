#include "backends/sim/step_pricer.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/sim/gpu_step_model.h"

namespace llm {
namespace {

bool any_negative(const BatchCost& b) {
  return b.num_sequences < 0 || b.new_tokens < 0 || b.context_tokens < 0 || b.attention_pairs < 0 ||
         b.sampling_sequences < 0 || b.decode_sequences < 0 || b.decode_context_tokens < 0;
}

}  // namespace

template <typename Compute>
double StepPricer::remembered(std::vector<double>& memo, int64_t count, Compute&& compute) {
  if (count >= kMaxRemembered) return compute(count);
  const auto i = static_cast<size_t>(count);
  if (i >= memo.size()) memo.resize(i + 1, std::numeric_limits<double>::quiet_NaN());
  if (std::isnan(memo[i])) memo[i] = compute(count);
  return memo[i];
}

Nanos StepPricer::step_time_ns(const BatchCost& batch) {
  const Deployment& d = *deployment_;
  // The fitted model is cheap; a bad batch takes the full path, which refuses it.
  if (d.fitted || !checked_ || any_negative(batch)) {
    const Nanos ns = llm::step_time_ns(d, batch);
    checked_ = true;  // reached only when the deployment passed its check
    return ns;
  }
  if (batch.num_sequences == 0 && batch.new_tokens == 0) return llm::step_time_ns(d, batch);
  const GpuStepInputs in{&d.model, d.tensor_parallel_size, d.kv_cache_dtype_bytes};
  const GpuStepCoefficients& c = d.gpu.step;
  const double layer_gemms = remembered(layer_gemms_, batch.new_tokens,
                                        [&](int64_t n) { return layer_gemms_ns(c, in, n); });
  const double lm_head = remembered(lm_head_, batch.sampling_sequences,
                                    [&](int64_t s) { return lm_head_ns(c, in, s); });
  const double ns = gpu_step_terms(c, in, batch, layer_gemms, lm_head).total();
  return std::max<Nanos>(static_cast<Nanos>(std::llround(ns)), 1);
}

}  // namespace llm
