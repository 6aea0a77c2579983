#include "calibrate/step_log_samples.h"

namespace llm {

std::vector<StepSample> step_log_samples(const std::vector<StepRecord>& steps, int64_t engine) {
  std::vector<StepSample> samples;
  for (const StepRecord& r : steps) {
    if (engine >= 0 && r.engine != engine) continue;
    const Nanos ns = r.modelled_ns > 0 ? r.modelled_ns : r.execute_ns;
    if (ns <= 0 || r.batch.num_sequences == 0) continue;
    samples.push_back({r.batch, static_cast<double>(ns)});
  }
  return samples;
}

}  // namespace llm
