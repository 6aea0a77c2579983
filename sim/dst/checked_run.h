// What the engines' checkers of one checked replay share (sim/dst/invariants.h): every sequence of
// the trace with what the mock GPU should make of it, and the routing oracle. CheckedRun checks the
// CONSERVATION of sequences over the run and ROUTING. Internal to the checkers of sim/dst/.
// Thread-safety: none; one replay on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/sim/sim_backend.h"
#include "core/clock.h"
#include "core/request.h"
#include "sim/replay/replay.h"
#include "sim/trace/trace.h"

namespace llm {

// What the mock GPU does with one sequence when nothing faults.
struct Expected {
  bool refused = false;  // the engine must finish it with `error` at once
  int64_t outputs = 0;
  FinishReason reason = FinishReason::kNone;
};

// Expected of one trace request's sequences under max_model_len.
Expected expected_for(const TraceRequest& e, int64_t max_model_len);

struct SeqRecord {
  std::string id;
  size_t request = 0;
  Expected expected;
  size_t engine = SIZE_MAX;  // once routed
  bool queued = false;
  int finishes = 0;
  int64_t tokens = 0;
  int64_t preemptions = 0;
  Nanos last_token = kNoTime;
  bool scheduled = false;  // admitted at least once
};

// What the engines' checkers share: the sequences and the routing oracle.
struct CheckedRun {
  CheckedRun(const Trace& trace, const ReplayConfig& config);
  void add_sequences(size_t request);
  void on_route(size_t request, size_t engine);
  size_t expected_engine(size_t request) const;
  void check_end(const ReplayTotals& totals) const;

  const Trace& trace;
  const ReplayConfig& config;
  SimBackend model;  // what the engines' mock GPUs sample
  size_t num_engines;
  bool aborts_possible;
  bool failures_possible;
  std::vector<SeqRecord> seqs;
  std::vector<size_t> first_seq;  // per trace request
  std::unordered_map<std::string, size_t> by_external_id;
  std::vector<int64_t> outstanding;  // per engine: sequences routed to it and not finished
  std::vector<int64_t> routed_seqs;  // per engine
  size_t routed = 0;                 // trace requests routed so far
};

}  // namespace llm
