#include "core/kv_block_residency.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace llm {
namespace {

double seconds(Nanos ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

KvBlockResidency::KvBlockResidency(int32_t num_blocks, double sample_rate, uint64_t seed)
    : states_(static_cast<size_t>(std::max(num_blocks, 0))), sample_rate_(sample_rate), rng_(seed) {
  if (!(sample_rate > 0 && sample_rate <= 1)) {
    throw std::invalid_argument("KvBlockResidency: sample_rate must be in (0, 1]");
  }
}

void KvBlockResidency::on_allocated(int32_t block) {
  State& s = states_[static_cast<size_t>(block)];
  // vLLM: random.random() < sample_rate; a block not sampled keeps no state.
  if (!(rng_.uniform() < sample_rate_)) {
    s.sampled = false;
    return;
  }
  s = State{};
  s.sampled = true;
  s.birth = now_;
  s.last_access = now_;
}

void KvBlockResidency::on_accessed(int32_t block) {
  State& s = states_[static_cast<size_t>(block)];
  if (!s.sampled) return;
  s.last_access = now_;
  s.history[s.num_accesses % kAccessHistory] = now_;
  ++s.num_accesses;
}

void KvBlockResidency::on_evicted(int32_t block) {
  State& s = states_[static_cast<size_t>(block)];
  if (!s.sampled) return;
  s.sampled = false;
  pending_.lifetime_s.push_back(seconds(now_ - s.birth));
  pending_.idle_s.push_back(seconds(now_ - s.last_access));
  // Gaps between consecutive recorded accesses, oldest first (vLLM: up to 3 from 4 accesses).
  const size_t kept = std::min(s.num_accesses, kAccessHistory);
  const size_t first = s.num_accesses - kept;
  for (size_t i = first + 1; i < s.num_accesses; ++i) {
    pending_.reuse_gap_s.push_back(
        seconds(s.history[i % kAccessHistory] - s.history[(i - 1) % kAccessHistory]));
  }
}

void KvBlockResidency::reset() {
  for (State& s : states_) s.sampled = false;
}

KvResidencyObservations KvBlockResidency::take() { return std::exchange(pending_, {}); }

size_t KvBlockResidency::num_sampled() const {
  return static_cast<size_t>(
      std::count_if(states_.begin(), states_.end(), [](const State& s) { return s.sampled; }));
}

}  // namespace llm
