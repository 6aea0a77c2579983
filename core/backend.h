// The Backend seam: runs one engine step's batch and returns a sampled token for every sequence
// whose step reaches its last token. The simulated backend also says how long the step took on
// the modelled GPU; real backends return 0 and the engine reads the clock instead.
// Thread-safety: a backend is driven by one engine thread.
#pragma once

#include <cstdint>
#include <vector>

#include "core/clock.h"
#include "core/scheduler.h"

namespace llm {

class Backend {
 public:
  virtual ~Backend() = default;
  // sampled is resized to batch.seqs.size(); entry i is the new token of seqs[i] if it samples,
  // else -1. Returns the modelled step duration in ns, or 0 when the step ran for real.
  virtual Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) = 0;
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
