// A Backend decorator for the simulated backend with a real tokenizer (--tokenizer): the sim
// model ends a sequence with its own eos (the last id of the vocabulary), a real vocabulary with
// its tokenizer's eos. Swapping the two ids in every sampled token (a bijection, so the sim's
// outputs stay deterministic and spread over the whole vocabulary) makes the engine see the
// tokenizer's eos exactly where the sim model stops. Sampled tokens' log-probabilities get the
// same swap.
// Thread-safety: as the wrapped backend (one engine thread).
#pragma once

#include "core/backend.h"

namespace llm {

class EosSwapBackend final : public Backend {
 public:
  EosSwapBackend(Backend& inner, int32_t eos)
      : inner_(inner), from_(inner.eos_token_id()), to_(eos) {}

  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    const Nanos t = inner_.execute(batch, sampled);
    for (int32_t& id : sampled) {
      if (id < 0) continue;
      if (id == from_) {
        id = to_;
      } else if (id == to_) {
        id = from_;
      }
    }
    const StepLogprobs& inner = inner_.logprobs();
    if (inner.empty()) {
      swapped_.clear();
      return t;
    }
    swapped_ = inner;
    for (SeqLogprobs& s : swapped_.seqs) {
      if (s.sampled) swap(*s.sampled);  // prompt tokens are the tokenizer's ids already
    }
    return t;
  }
  const StepLogprobs& logprobs() const override { return swapped_; }
  int32_t eos_token_id() const override { return to_; }
  void release(const Request& request) override { inner_.release(request); }
  int64_t natural_output_len(const Request& request) const override {
    return inner_.natural_output_len(request);
  }

 private:
  int32_t swap(int32_t id) const { return id == from_ ? to_ : id == to_ ? from_ : id; }
  void swap(PositionLogprobs& p) const {
    p.token = swap(p.token);
    for (TokenLogprob& t : p.top) t.token = swap(t.token);
  }

  Backend& inner_;
  int32_t from_;
  int32_t to_;
  StepLogprobs swapped_;  // the inner backend's latest log-probabilities, ids swapped
};

}  // namespace llm
