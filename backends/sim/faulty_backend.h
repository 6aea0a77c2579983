// Fault points of the simulated GPU for deterministic simulation testing (`llmsim dst`, in the
// manner of FoundationDB's BUGGIFY): a Backend decorator that runs the wrapped backend and then,
// drawn from its own seeded generator, stretches the step's modelled time (a constant slowdown, for
// data-parallel engines of uneven speed, and random latency spikes) or fails the step's batch with
// StepFailed (core/backend.h: its sequences end with `error`, the engine goes on). Only the
// simulator builds one (sim/replay/replay.cpp, when ReplayFaults ask for it); llmserve never
// does, so these faults exist only under simulation. Invariants: the same seed and the same
// sequence of batches give the same spikes and failures; a step's time is never shortened; a failed
// step's elapsed time is the (stretched) time the wrapped backend modelled, and it samples no
// token.
// Thread-safety: none; driven by one engine.
#pragma once

#include <cstdint>
#include <vector>

#include "core/backend.h"
#include "core/rng.h"

namespace llm {

struct BackendFaults {
  double slowdown = 1.0;           // every step takes this many times longer (>= 1)
  double spike_probability = 0;    // per step: a latency spike
  double spike_factor = 1.0;       // a spiked step takes up to this many times longer (>= 1)
  double failure_probability = 0;  // per step: the batch fails (StepFailed)

  // False for the defaults: wrapping a backend in FaultyBackend would change nothing.
  bool any() const;
};

class FaultyBackend final : public Backend {
 public:
  // `inner` must outlive this object.
  FaultyBackend(Backend& inner, const BackendFaults& faults, uint64_t seed);

  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override;
  const StepLogprobs& logprobs() const override { return inner_.logprobs(); }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  void release(const Request& request) override { inner_.release(request); }
  int64_t natural_output_len(const Request& request) const override {
    return inner_.natural_output_len(request);
  }

  int64_t num_spikes() const { return num_spikes_; }
  int64_t num_failures() const { return num_failures_; }

 private:
  Nanos stretch(Nanos duration);

  Backend& inner_;
  BackendFaults faults_;
  Rng rng_;
  int64_t num_spikes_ = 0;
  int64_t num_failures_ = 0;
};

}  // namespace llm
