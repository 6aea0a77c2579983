// Predicts a recorded run: replays its trace with the given configuration and computes the
// figures the run measured, from the same starting point (the client's send, or the engine's
// queue for vLLM's own timestamps) over the requests that completed, per stage and for the whole
// run. The run's client timeout becomes an abort of each request still unanswered then.
// Thread-safety: pure function of its inputs (one replay, single-threaded).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/recorded/recorded_run.h"
#include "sim/replay/replay.h"

namespace llm {

struct RecordedPrediction {
  RunFigures whole;
  std::vector<RunFigures> stages;  // one per RecordedRun::stages
  int64_t completed = 0;           // requests that finished with all their tokens
  int64_t aborted = 0;             // requests the client's timeout aborted
  int64_t preemptions = 0;
  bool api_server = false;  // the client's view includes the API server's time
};

// `config` is the run's engine (make_replay_config of RecordedRun::engine); its faults are
// replaced by the run's client timeouts.
RecordedPrediction predict_recorded_run(const RecordedRun& run, ReplayConfig config);

}  // namespace llm
