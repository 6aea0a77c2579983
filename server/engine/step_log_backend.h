// A Backend decorator for llmserve's --step-log: times every execute() of the wrapped backend on
// the steady clock and writes one StepRecord line per step (the batch's cost terms, the execute
// time and the gap since the previous step), so `llmsim price-steps` can price each real step
// with a profile and show which kinds of step the profile gets wrong. The records of all engines
// go to one StepLogFile; each line carries its engine's index.
// Thread-safety: a StepLogBackend is driven by its engine's thread; StepLogFile::write may be
// called from every engine thread at once.
#pragma once

#include <fstream>
#include <mutex>
#include <string>

#include "core/backend.h"

namespace llm {

struct StepRecord;

class StepLogFile {
 public:
  // Opens (truncates) `path`; throws std::runtime_error naming it when it cannot.
  explicit StepLogFile(const std::string& path);
  void write(const StepRecord& record);

 private:
  std::mutex mu_;
  std::ofstream out_;
  std::string path_;
};

class StepLogBackend final : public Backend {
 public:
  StepLogBackend(Backend& inner, StepLogFile& log, int64_t engine)
      : inner_(inner), log_(log), engine_(engine) {}

  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override;
  const StepLogprobs& logprobs() const override { return inner_.logprobs(); }
  int32_t eos_token_id() const override { return inner_.eos_token_id(); }
  void release(const Request& request) override { inner_.release(request); }
  int64_t natural_output_len(const Request& request) const override {
    return inner_.natural_output_len(request);
  }

 private:
  Backend& inner_;
  StepLogFile& log_;
  int64_t engine_;
  int64_t steps_ = 0;
  Nanos first_start_ = 0;
  Nanos previous_end_ = -1;
};

}  // namespace llm
