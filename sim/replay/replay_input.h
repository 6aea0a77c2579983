// The requests `llmsim replay` runs, as its flags ask: the trace (a file, gzipped or not,
// standard input, a synthetic spec), its --start/--end window, its load scaling. When the
// scaling is a stretch (any --arrival-rate-scale with --load-scaling stretch, --loop-to too:
// the trace is read again for each pass) and the arrivals need no sorting, the trace is streamed: a
// first pass validates it and counts what the reports need before the run (requests, first and last
// arrival), and each open() reads it again, so memory does not grow with its length. Otherwise
// (--load-scaling sample,
// --sort-arrivals) the trace is read whole into memory, as before.
// Standard input ("-") is copied to a temporary file first (removed with this object) so that it
// can be read twice.
// Thread-safety: none.
#pragma once

#include <memory>
#include <string>

#include "sim/replay/replay_options.h"
#include "sim/trace/load_scaling.h"
#include "sim/trace/request_stream.h"

namespace llm {

class ReplayInput {
 public:
  // Reads the trace once. Throws TraceError (bad input, naming FILE:LINE), std::invalid_argument
  // and std::out_of_range (load scaling).
  explicit ReplayInput(const ReplayOptions& options);
  ~ReplayInput();
  ReplayInput(const ReplayInput&) = delete;
  ReplayInput& operator=(const ReplayInput&) = delete;

  // A new pass over the requests to replay.
  std::unique_ptr<RequestStream> open() const;
  bool streamed() const { return streamed_; }

  StreamFacts facts;     // of the requests replayed
  LoadScalingInfo load;  // how their load was scaled

 private:
  std::unique_ptr<RequestStream> open_trace(bool check_order) const;
  std::unique_ptr<RequestStream> open_scaled() const;  // the window, stretched

  const ReplayOptions& options_;
  std::string path_, format_, name_;
  std::string spooled_;  // the copy of standard input, if any
  bool streamed_ = true;
  Trace whole_;                     // not streamed: the requests to replay
  int64_t first_ = 0, period_ = 0;  // --loop-to: the stretched trace's first arrival and period
};

}  // namespace llm
