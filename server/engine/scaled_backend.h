// A Backend decorator that multiplies the modelled step time of another backend (llmserve's
// --step-time-scale): 0 gives zero-cost steps for benchmarks and fast tests, 1 real-time
// simulation, 2 a GPU twice as slow.
// Thread-safety: as the wrapped backend (one engine thread).
#pragma once

#include <cmath>

#include "core/backend.h"

namespace llm {

class ScaledBackend final : public Backend {
 public:
  ScaledBackend(Backend& inner, double scale) : inner_(inner), scale_(scale) {}

  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    const Nanos modelled = inner_.execute(batch, sampled);
    return static_cast<Nanos>(std::llround(static_cast<double>(modelled) * scale_));
  }
  const StepLogprobs& logprobs() const override { return inner_.logprobs(); }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  void release(const Request& request) override { inner_.release(request); }
  int64_t natural_output_len(const Request& request) const override {
    return inner_.natural_output_len(request);
  }

 private:
  Backend& inner_;
  double scale_;
};

}  // namespace llm
