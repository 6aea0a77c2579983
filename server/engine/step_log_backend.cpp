#include "server/engine/step_log_backend.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "backends/sim/step_record.h"

namespace llm {

namespace {

Nanos steady_now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

StepLogFile::StepLogFile(const std::string& path) : out_(path, std::ios::trunc), path_(path) {
  if (!out_) throw std::runtime_error(path + ": cannot open the step log for writing");
}

void StepLogFile::write(const StepRecord& record) {
  const std::string line = step_record_json(record);
  std::lock_guard<std::mutex> lock(mu_);
  out_ << line << '\n';
  // Flushed per line: a log cut short by a crash or a kill keeps every step before it.
  out_.flush();
}

Nanos StepLogBackend::execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) {
  const Nanos start = steady_now();
  if (steps_ == 0) first_start_ = start;
  StepRecord record;
  record.engine = engine_;
  record.step = steps_++;
  record.start_ns = start - first_start_;
  record.gap_ns = previous_end_ < 0 ? -1 : std::max<Nanos>(0, start - previous_end_);
  record.batch = batch_cost_of(batch);
  Nanos modelled = 0;
  try {
    modelled = inner_.execute(batch, sampled);
  } catch (...) {
    previous_end_ = steady_now();
    throw;  // a failed step is not a timing sample
  }
  const Nanos end = steady_now();
  record.execute_ns = end - start;
  record.modelled_ns = modelled;
  // A simulated step's modelled time is waited out by the engine after execute() returns (counted
  // from the step's start, scheduling included), so the host's own time before the next step
  // starts after about that wait.
  previous_end_ = end + modelled;
  log_.write(record);
  return modelled;
}

}  // namespace llm
