#include "backends/sim/sim_backend.h"

#include <algorithm>

#include "backends/sim/sim_tokenizer.h"
#include "core/rng.h"

namespace llm {

SimBackend::SimBackend(const Deployment& deployment, uint64_t seed)
    : deployment_(deployment),
      seed_(seed),
      eos_(static_cast<int32_t>(std::max<int64_t>(deployment.model.vocab, 2) - 1)) {}

int32_t SimBackend::token_for(const Request& r, int64_t index) const {
  uint64_t h = hash_combine(seed_, r.params.seed);
  h = hash_combine(h, r.prompt_salt);
  h = hash_combine(h, static_cast<uint64_t>(r.child_index));
  h = hash_combine(h, static_cast<uint64_t>(index));
  return static_cast<int32_t>(h % static_cast<uint64_t>(eos_));  // ids 0 .. eos-1
}

int64_t SimBackend::natural_output_len(const Request& r) const {
  return SimTokenizer::natural_output_len(r.prompt_salt, r.params.seed);
}

Nanos SimBackend::execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) {
  sampled.assign(batch.seqs.size(), -1);
  BatchCost cost;
  for (size_t i = 0; i < batch.seqs.size(); ++i) {
    const ScheduledSeq& s = batch.seqs[i];
    cost.add(s.num_computed_before, s.num_new_tokens, s.samples);
    if (!s.samples) continue;
    const Request& r = *s.request;
    const bool last = r.scripted_output_len > 0 && r.num_output_tokens + 1 >= r.scripted_output_len;
    sampled[i] = last ? eos_ : token_for(r, r.num_output_tokens);
  }
  return step_time_ns(deployment_, cost);
}

}  // namespace llm
