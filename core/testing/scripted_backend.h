// A Backend for tests: every step takes a fixed modelled time; a sequence receives token 7 until
// its scripted output length, where it receives the end-of-sequence id 0.
// Thread-safety: none.
#pragma once

#include "core/backend.h"

namespace llm::testing {

class ScriptedBackend final : public Backend {
 public:
  explicit ScriptedBackend(Nanos step_ns = 10) : step_ns_(step_ns) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    sampled.assign(batch.seqs.size(), -1);
    for (size_t i = 0; i < batch.seqs.size(); ++i) {
      const ScheduledSeq& s = batch.seqs[i];
      if (!s.samples) continue;
      const Request& r = *s.request;
      const bool last =
          r.scripted_output_len > 0 && r.num_output_tokens + 1 >= r.scripted_output_len;
      sampled[i] = last ? 0 : 7;
    }
    ++steps_;
    return step_ns_;
  }
  int32_t eos_token_id() const override { return 0; }
  int steps() const { return steps_; }

 private:
  Nanos step_ns_;
  int steps_ = 0;
};

}  // namespace llm::testing
