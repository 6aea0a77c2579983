// One engine step as llmserve's --step-log writes it and `llmsim price-steps` reads it: the
// batch's shape (the BatchCost terms the step model prices) and the times measured around the
// backend's execute(). A line of the log is one record as a JSON object:
//
//   {"engine":0,"step":12,"start_ns":81234567,"execute_ns":20873111,"gap_ns":412345,
//    "modelled_ns":0,"seqs":9,"new_tokens":9,"context_tokens":1840,"attention_pairs":1844.5,
//    "sampled":9}
//
// start_ns counts from the engine's first logged step; gap_ns is the time from the end of the
// engine's previous step to this one's start (scheduling, bookkeeping and any idle wait; -1 for
// the first step; a simulated step ends about when its modelled time has passed); modelled_ns is
// what a simulated backend says the step costs (its execute() returns at once and the engine
// then waits that long), 0 for a real backend.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/sim/cost_model.h"
#include "core/clock.h"

namespace llm {

struct SchedulerOutput;

struct StepRecord {
  int64_t engine = 0;
  int64_t step = 0;
  Nanos start_ns = 0;
  Nanos execute_ns = 0;
  Nanos gap_ns = -1;
  Nanos modelled_ns = 0;
  BatchCost batch;
};

// The cost terms of a scheduled batch, as the simulated backend prices it.
BatchCost batch_cost_of(const SchedulerOutput& batch);

// One line of the log, without its newline.
std::string step_record_json(const StepRecord& record);

// Parses one line; throws std::invalid_argument naming the field that is missing or wrong.
StepRecord parse_step_record(const std::string& line);

// Every record of a step log file, in order (blank lines skipped). Throws std::invalid_argument
// "PATH: cannot read the step log", "PATH:LINE: field ..." or "PATH: no steps in the log".
std::vector<StepRecord> read_step_log(const std::string& path);

// The records a step log holds so far (its non-blank lines; a log a server has only opened holds
// 0), for reading later only what was logged after this point. Throws std::invalid_argument
// "PATH: cannot read the step log".
size_t count_step_records(const std::string& path);

}  // namespace llm
