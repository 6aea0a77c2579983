// StepDriver: hand-made engine steps for the GPU checks and benchmarks, without the scheduler:
// it owns the requests, hands out KV blocks from a (optionally shuffled) pool, builds each step's
// SchedulerOutput (prefill chunks and decode tokens) and appends the sampled tokens afterwards.
// Thread-safety: none; one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/request.h"
#include "core/scheduler.h"

namespace llm {

class StepDriver {
 public:
  // Blocks 1..num_blocks-1 (0 is the engine's null block), shuffled with `shuffle_seed` unless 0.
  StepDriver(int64_t num_blocks, int32_t block_size, uint64_t shuffle_seed);

  // A request with this prompt; returns its index.
  size_t add(std::vector<int32_t> prompt, const SamplingParams& params);
  Request& request(size_t i) { return *requests_[i]; }
  size_t size() const { return requests_.size(); }

  // Adds n tokens of request i to the step being built (allocating blocks); it samples when they
  // reach the request's last known token.
  void schedule(size_t i, int64_t n);
  // The step built so far; cleared by apply().
  const SchedulerOutput& batch() const { return batch_; }
  // Appends each sampling sequence's token (sampled[k] for batch().seqs[k]) and starts a new step.
  void apply(const std::vector<int32_t>& sampled);
  // Tokens request i has computed (in its KV cache).
  int64_t computed(size_t i) const { return computed_[i]; }
  // Forgets request i's blocks and progress (as a preemption does): it recomputes from 0.
  void reset(size_t i);

 private:
  int32_t block_size_;
  std::vector<int32_t> free_;
  std::vector<std::unique_ptr<Request>> requests_;
  std::vector<int64_t> computed_;
  SchedulerOutput batch_;
};

// Tokens of a seeded pseudo-random prompt in [0, vocab).
std::vector<int32_t> seeded_prompt(uint64_t seed, int64_t n, int64_t vocab);

}  // namespace llm
