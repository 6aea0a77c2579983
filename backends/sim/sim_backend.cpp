#include "backends/sim/sim_backend.h"

#include <algorithm>
#include <cmath>

#include "backends/sim/sim_logprobs.h"
#include "backends/sim/sim_tokenizer.h"
#include "backends/sim/step_record.h"
#include "core/rng.h"

namespace llm {
namespace {

// How many sequences ahead execute() asks for a request's cache lines (a decode batch's requests
// are a few hundred kilobytes, read from L2 or further in each pass).
constexpr size_t kPrefetchAhead = 8;

}  // namespace

SimBackend::SimBackend(const Deployment& deployment, uint64_t seed, uint64_t engine)
    : deployment_(deployment),
      seed_(seed),
      eos_(static_cast<int32_t>(std::max<int64_t>(deployment.model.vocab, 2) - 1)),
      mod_eos_(static_cast<uint64_t>(eos_)),
      noise_seed_(engine == 0 ? seed : hash_combine(seed, engine)) {}

uint64_t SimBackend::identity(const Request& r) const {
  uint64_t h = hash_combine(seed_, r.params.seed);
  h = hash_combine(h, r.prompt_salt);
  return hash_combine(h, static_cast<uint64_t>(r.child_index));
}

uint64_t SimBackend::cached_identity(Request& r) const {
  if (!r.sample_key_set || r.sample_key_seed != seed_) {
    r.sample_key = identity(r);
    r.sample_key_seed = seed_;
    r.sample_key_set = true;
  }
  return r.sample_key;
}

int32_t SimBackend::token_of(uint64_t key, int64_t index) const {
  const uint64_t h = hash_combine(key, static_cast<uint64_t>(index));
  return static_cast<int32_t>(mod_eos_(h));  // h % eos: ids 0 .. eos-1
}

int32_t SimBackend::token_for(const Request& r, int64_t index) const {
  return token_of(identity(r), index);
}

int64_t SimBackend::natural_output_len(const Request& r) const {
  return SimTokenizer::natural_output_len(r.prompt_salt, r.params.seed);
}

Nanos SimBackend::execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) {
  sampled.assign(batch.seqs.size(), -1);
  logprobs_.clear();
  const BatchCost cost = batch_cost_of(batch);
  const size_t n = batch.seqs.size();
  for (size_t i = 0; i < n; ++i) {
    if (i + kPrefetchAhead < n) prefetch_step_fields(*batch.seqs[i + kPrefetchAhead].request);
    const ScheduledSeq& s = batch.seqs[i];
    Request& r = *s.request;
    if (s.samples) {
      const bool last =
          r.scripted_output_len > 0 && r.num_output_tokens + 1 >= r.scripted_output_len;
      sampled[i] = last ? eos_ : token_of(cached_identity(r), r.num_output_tokens);
    }
    if (wants_logprobs(r.params.logprobs, r.params.prompt_logprobs)) {
      add_logprobs(s, i, sampled[i]);
    }
  }
  const Nanos modelled = pricer_.step_time_ns(cost);
  if (!deployment_.step_noise || modelled == 0) return modelled;
  const double ratio = step_noise_draw(*deployment_.step_noise, noise_seed_, steps_drawn_++);
  return std::max<Nanos>(1, std::llround(static_cast<double>(modelled) * ratio));
}

// Keys: the sequence's identity with the output index (sampled) or the prompt position and token
// (prompt), so a recomputed step gives the same values.
void SimBackend::add_logprobs(const ScheduledSeq& s, size_t index, int32_t token) {
  const Request& r = *s.request;
  const int64_t vocab = static_cast<int64_t>(eos_) + 1;
  SeqLogprobs e;
  e.seq = index;
  const int64_t end = s.num_computed_before + s.num_new_tokens;
  const int64_t prompt = static_cast<int64_t>(r.prompt_tokens.size());
  if (r.params.prompt_logprobs >= 0 && prompt == r.prompt_len) {
    e.first_prompt_position = s.num_computed_before + 1;
    for (int64_t pos = e.first_prompt_position; pos < std::min(end + 1, prompt); ++pos) {
      const int32_t t = r.prompt_tokens[static_cast<size_t>(pos)];
      if (t < 0 || t >= vocab) break;  // not one of this model's ids
      const uint64_t key = hash_combine(hash_combine(r.prompt_salt, 0x70726f6d7074ULL),
                                        hash_combine(static_cast<uint64_t>(pos), seed_));
      e.prompt.push_back(sim_position_logprobs(key, t, r.params.prompt_logprobs, vocab));
    }
  }
  if (s.samples && r.params.logprobs >= 0) {
    const uint64_t key = hash_combine(identity(r) ^ 0x6c6f67ULL, r.num_output_tokens);
    e.sampled = sim_position_logprobs(key, token, r.params.logprobs, vocab);
  }
  if (!e.prompt.empty() || e.sampled) logprobs_.seqs.push_back(std::move(e));
}

}  // namespace llm
