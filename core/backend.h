// The Backend seam: runs one engine step's batch and returns a sampled token for every sequence
// whose step reaches its last token. The simulated backend also says how long the step took on
// the modelled GPU; real backends return 0 and the engine reads the clock instead.
//
// Failure: execute() throws StepFailed when this step's batch failed but the backend is still
// usable; EngineCore then ends that batch's sequences with FinishReason::kError and goes on. Any
// other exception means the backend (and so the engine) cannot go on: EngineCore lets it through.
// Thread-safety: a backend is driven by one engine thread.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/logprobs.h"
#include "core/scheduler.h"

namespace llm {

// "This step's batch failed, I am still usable." EngineCore finishes every sequence of the batch
// with FinishReason::kError at the step's end (the modelled `elapsed` after its start; 0 for real
// backends, which the clock times), frees their KV blocks, notifies the observer as for any finish
// (no tokens are applied) and schedules the next step as usual. Sequences preempted by that step
// are not in its batch and stay queued. The KV blocks the step was to fill keep the prefix-cache
// hashes they got when allocated, so a backend whose failed step may leave garbage in blocks a
// later request can hit must not use StepFailed while prefix caching is on (the simulated
// backend has no KV content, so it may).
class StepFailed : public std::runtime_error {
 public:
  explicit StepFailed(const std::string& what, Nanos elapsed = 0)
      : std::runtime_error(what), elapsed_(elapsed) {}
  Nanos elapsed() const { return elapsed_; }

 private:
  Nanos elapsed_;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // sampled is resized to batch.seqs.size(); entry i is the new token of seqs[i] if it samples,
  // else -1. Returns the modelled step duration in ns, or 0 when the step ran for real. Throws
  // StepFailed when only this batch failed (see above).
  virtual Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) = 0;
  // The log-probabilities the latest execute() computed, valid until the next one: an entry for
  // each sequence of its batch whose request asks (SamplingParams::logprobs, prompt_logprobs),
  // none when no request does (which must cost the step nothing). Backends that compute none
  // keep this default (the client then gets no log-probabilities).
  virtual const StepLogprobs& logprobs() const {
    static const StepLogprobs kNone;
    return kNone;
  }
  // The id the model uses to end a sequence.
  virtual int32_t eos_token_id() const = 0;
  // Forget any per-request state (a request finished or was aborted).
  virtual void release(const Request& request) {}
  // Where the model ends `request` by itself when nothing scripts its length: a simulated model
  // picks a length (it has no real eos to sample); real models return -1 and sample their eos.
  // Asked once per client request (before fan-out), only when ignore_eos is off.
  virtual int64_t natural_output_len(const Request& request) const { return -1; }
};

}  // namespace llm
