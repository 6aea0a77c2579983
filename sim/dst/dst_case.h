// The random cases of `llmsim dst` (deterministic simulation testing): from one seed, a random
// trace, a random engine configuration and random faults, all drawn from one llm::Rng, so a seed
// names its case on every machine and build.
//
// Engine configurations: block size 1 to 32, max_model_len 16 to 512, chunked prefill and prefix
// caching on or off, token budgets from 1 token, max_num_seqs from 1, long-prefill thresholds,
// FCFS or priority, 1 to 4 data-parallel engines with each routing policy, and a KV cache from
// exactly the minimum (one max_model_len request fits; "squeezed", 3 seeds in 10) to three times
// it. Traces: up to 40 requests (150 in one seed in 10) with gaps of 0 to 30 ms and bursts at one
// instant; short prompts, some near or past max_model_len (refused), empty prompts and max_tokens
// 0 (refused); n up to 8; prefixes (or whole prompts) shared as trace hash ids or real token ids.
// Faults (ReplayFaults, each present in 3 to 5 seeds in 10, so some seeds have none): latency
// spikes, failed steps (now and then most steps), engines of uneven speed, client aborts at random
// moments (at arrival, while queued, during prefill or decode, while preempted), the children of
// an n > 1 request aborted one by one, and engine-loop aborts of a random sequence in a chosen
// state.
// Invariants: a seed's case is the same on every machine and build; every case's configuration
// passes validate(); a squeezed case has exactly min_gpu_blocks.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "core/rng.h"
#include "sim/replay/replay.h"
#include "sim/trace/trace.h"

namespace llm {

struct DstCase {
  uint64_t seed = 0;
  Trace trace;
  ReplayConfig config;    // its faults included
  bool squeezed = false;  // num_gpu_blocks == min_gpu_blocks(config.scheduler)
};

// The case of `seed`; the same seed always gives the same case.
DstCase make_dst_case(uint64_t seed);

// The fewest KV blocks validate() accepts: one max_model_len request, plus the null block.
int32_t min_gpu_blocks(const SchedulerConfig& config);

// Random faults for `trace` on `num_engines` engines (also used by the property tests).
ReplayFaults random_faults(Rng& rng, const Trace& trace, int32_t num_engines);

// One line: the configuration, the trace's size and the faults, for --verbose.
std::string describe_dst_case(const DstCase& c);

}  // namespace llm
