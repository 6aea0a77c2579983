// The designed steps `llmsim calibrate --backend ...` times on a real backend in-process, through
// the Backend seam: prefills of several prompt lengths (one step each, or chunks past the token
// budget), decode batches of 1..max_num_seqs sequences at several context lengths, and mixed
// steps (a prefill joining running decodes). Each probe is a small workload run on an EngineCore
// over a SimClock whose time advances by each step's measured duration (the steady clock around
// Backend::execute), so the engine's own scheduler forms the batches. Every probe runs `repeats`
// times and each of its steps keeps the median of its repeats.
// Thread-safety: none; one thread drives a probe run (the backend may use its own threads).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "calibrate/step_fit.h"
#include "core/backend.h"
#include "core/scheduler_config.h"

namespace llm {

// One request of a probe: it arrives before step `arrival_step` (0 = the first).
struct ProbeRequest {
  int64_t arrival_step = 0;
  int64_t prompt_len = 0;
  int64_t max_tokens = 1;
};

struct Probe {
  std::string name;  // "prefill 512", "decode 8 x 256", "mixed 2 + 512"
  std::vector<ProbeRequest> requests;
};

// The default probes for an engine configuration (its max_num_seqs, max_num_batched_tokens and
// max_model_len bound the sizes). `quick`: a few small probes, for tests.
std::vector<Probe> default_probes(const SchedulerConfig& config, bool quick);

struct ProbeOptions {
  int repeats = 3;
  int64_t vocab_size = 0;  // prompt ids are drawn from [0, vocab_size)
  uint64_t seed = 1;
  // Called before each probe run with (probe name, run number, total runs).
  std::function<void(const std::string&, int, int)> progress;
};

// Runs every probe (after one unmeasured warm-up run of the first) with prefix caching off, and
// returns one sample per step: the batch and its median measured time over the repeats whose
// step had the same batch. Throws std::invalid_argument for vocab_size < 1.
std::vector<StepSample> measure_backend_steps(Backend& backend, SchedulerConfig config,
                                              const std::vector<Probe>& probes,
                                              const ProbeOptions& options);

}  // namespace llm
