#include "backends/sim/faulty_backend.h"

#include <cmath>

namespace llm {

bool BackendFaults::any() const {
  return slowdown != 1.0 || spike_probability > 0 || failure_probability > 0;
}

FaultyBackend::FaultyBackend(Backend& inner, const BackendFaults& faults, uint64_t seed)
    : inner_(inner), faults_(faults), rng_(seed) {}

Nanos FaultyBackend::stretch(Nanos duration) {
  double factor = faults_.slowdown;
  if (faults_.spike_probability > 0 && rng_.uniform() < faults_.spike_probability) {
    ++num_spikes_;
    factor *= 1.0 + rng_.uniform() * (faults_.spike_factor - 1.0);
  }
  return factor == 1.0 ? duration : static_cast<Nanos>(std::ceil(duration * factor));
}

Nanos FaultyBackend::execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) {
  const Nanos duration = stretch(inner_.execute(batch, sampled));
  if (faults_.failure_probability > 0 && rng_.uniform() < faults_.failure_probability) {
    ++num_failures_;
    sampled.assign(batch.seqs.size(), -1);
    throw StepFailed("injected step failure", duration);
  }
  return duration;
}

}  // namespace llm
