// The mock GPU: a deterministic Backend whose step time comes from the roofline cost model (or a
// profile's fitted model, times a ratio drawn from its step_time_noise for each step, numbered
// in execute() order and hashed with the engine's noise seed) and whose output tokens are
// pseudo-random ids from a seeded generator. A request with a scripted output length emits the
// end-of-sequence id as its last token, so it stops exactly there; a client request without one
// (llmserve) gets SimTokenizer's natural length for its prompt. Thread-safety: none; driven by one
// engine.
#pragma once

#include <cstdint>

#include "backends/sim/cost_model.h"
#include "backends/sim/step_pricer.h"
#include "core/backend.h"
#include "core/fast_mod.h"
#include "core/logprobs.h"

namespace llm {

class SimBackend final : public Backend {
 public:
  // The model's vocabulary is [0, vocab); eos is its last id. Every engine of a deployment gets
  // the same seed (a request's tokens do not depend on where it is routed); `engine` (its index)
  // gives each its own stream of step-time draws, engine 0 the seed's own.
  SimBackend(const Deployment& deployment, uint64_t seed, uint64_t engine = 0);
  SimBackend(const SimBackend&) = delete;  // pricer_ points at deployment_
  SimBackend& operator=(const SimBackend&) = delete;

  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override;
  // Pseudo-values (backends/sim/sim_logprobs.h) keyed by the request's identity and position.
  const StepLogprobs& logprobs() const override { return logprobs_; }
  int32_t eos_token_id() const override { return eos_; }
  // SimTokenizer::natural_output_len of the request's prompt (Request::prompt_salt) and seed.
  int64_t natural_output_len(const Request& request) const override;

  const Deployment& deployment() const { return deployment_; }
  // The token a request receives as its output number `index` (0-based), excluding eos.
  int32_t token_for(const Request& request, int64_t index) const;

 private:
  void add_logprobs(const ScheduledSeq& s, size_t index, int32_t sampled);
  uint64_t identity(const Request& request) const;
  // identity(request), cached in the request (Request::sample_key) the first time.
  uint64_t cached_identity(Request& request) const;
  int32_t token_of(uint64_t key, int64_t index) const;  // token_for from identity() `key`

  Deployment deployment_;
  StepPricer pricer_{deployment_};  // prices deployment_'s steps (declared after it)
  uint64_t seed_;
  int32_t eos_;
  FastMod mod_eos_;           // % eos_, for token ids
  StepLogprobs logprobs_;     // the latest execute()'s; empty unless a request asks
  uint64_t noise_seed_;       // the seed for engine 0, a hash of it and the engine's index else
  uint64_t steps_drawn_ = 0;  // step-noise draws so far
};

}  // namespace llm
