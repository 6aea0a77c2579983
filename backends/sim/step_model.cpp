#include "backends/sim/step_model.h"

#include <algorithm>
#include <cmath>

#include "backends/sim/cost_model.h"

namespace llm {

StepFeatures step_features(const BatchCost& b, double token_knee, double sample_knee) {
  const auto d = [](int64_t v) { return static_cast<double>(v); };
  return StepFeatures{{1.0, d(b.num_sequences), std::max(d(b.new_tokens), token_knee),
                       d(b.context_tokens), b.attention_pairs,
                       std::max(d(b.sampling_sequences), sample_knee),
                       b.new_tokens >= 2 ? 1.0 : 0.0}};
}

Nanos fitted_step_time_ns(const FittedStepModel& m, const BatchCost& b) {
  if (b.num_sequences == 0 && b.new_tokens == 0) return 0;
  const StepFeatures f = step_features(b, m.token_knee, m.sample_knee);
  const double coefficients[StepFeatures::kCount] = {
      m.overhead_ns,           m.per_sequence_ns, m.per_token_ns,  m.per_context_token_ns,
      m.per_attention_pair_ns, m.per_sample_ns,   m.multi_token_ns};
  double ns = 0;
  for (int i = 0; i < StepFeatures::kCount; ++i) ns += coefficients[i] * f.values[i];
  return std::max<Nanos>(1, std::llround(ns));
}

FittedStepModel scaled_step_model(const FittedStepModel& model, double factor) {
  FittedStepModel m = model;
  for (double* coefficient :
       {&m.overhead_ns, &m.per_sequence_ns, &m.per_token_ns, &m.per_context_token_ns,
        &m.per_attention_pair_ns, &m.per_sample_ns, &m.multi_token_ns}) {
    *coefficient *= factor;
  }
  return m;
}

std::string fitted_model_problem(const FittedStepModel& m) {
  struct Field {
    const char* name;
    double value;
  };
  const Field fields[] = {{"overhead_ns", m.overhead_ns},
                          {"per_sequence_ns", m.per_sequence_ns},
                          {"per_token_ns", m.per_token_ns},
                          {"token_knee", m.token_knee},
                          {"per_context_token_ns", m.per_context_token_ns},
                          {"per_attention_pair_ns", m.per_attention_pair_ns},
                          {"per_sample_ns", m.per_sample_ns},
                          {"sample_knee", m.sample_knee},
                          {"multi_token_ns", m.multi_token_ns}};
  for (const Field& f : fields) {
    if (!std::isfinite(f.value) || f.value < 0) {
      return std::string(f.name) + ": must be a finite number >= 0";
    }
  }
  BatchCost one;
  one.add(0, 1, true);
  const StepFeatures f = step_features(one, m.token_knee, m.sample_knee);
  const double smallest = m.overhead_ns + m.per_sequence_ns * f.values[1] +
                          m.per_token_ns * f.values[2] + m.per_attention_pair_ns * f.values[4] +
                          m.per_sample_ns * f.values[5];
  if (!(smallest >= 1.0)) {
    return "overhead_ns: the model prices the smallest step (one sequence, one token) at " +
           std::to_string(smallest) + " ns; a step takes time";
  }
  return "";
}

}  // namespace llm
