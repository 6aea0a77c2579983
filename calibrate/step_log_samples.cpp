#include "calibrate/step_log_samples.h"

#include <map>

namespace llm {

std::vector<StepSample> step_log_samples(const std::vector<StepRecord>& steps, int64_t engine,
                                         Nanos gap_limit_ns) {
  std::vector<StepSample> samples;
  std::map<int64_t, int64_t> last_sample;  // engine -> its latest step's sample (-1: none)
  for (const StepRecord& r : steps) {
    if (engine >= 0 && r.engine != engine) continue;
    auto last = last_sample.find(r.engine);
    if (last != last_sample.end() && last->second >= 0 && r.gap_ns >= 0 &&
        r.gap_ns < gap_limit_ns) {
      samples[static_cast<size_t>(last->second)].ns += static_cast<double>(r.gap_ns);
    }
    const Nanos ns = r.modelled_ns > 0 ? r.modelled_ns : r.execute_ns;
    if (ns <= 0 || r.batch.num_sequences == 0) {
      last_sample[r.engine] = -1;
      continue;
    }
    last_sample[r.engine] = static_cast<int64_t>(samples.size());
    samples.push_back({r.batch, static_cast<double>(ns)});
  }
  return samples;
}

}  // namespace llm
