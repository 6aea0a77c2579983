// The requests `llmsim replay` runs, as its flags ask: the trace (a file, gzipped or not,
// standard input, a synthetic spec), sorted by arrival (--sort-arrivals: sim/replay/
// sorted_arrivals.h, within --sort-in-memory requests, the rest in sorted runs on disk), its
// --start/--end window, its load scaling (sim/trace/load_scaling.h; --loop-to reads the trace
// again for each pass, --load-scaling sample once per copy at a time). The trace is streamed: a
// first pass validates it and counts what the reports need before the run (requests, first and
// last arrival), and each open() reads it again, so memory does not grow with its length.
// Standard input ("-") is copied to a temporary file first (removed with this object) so that it
// can be read twice.
// Thread-safety: none.
#pragma once

#include <memory>
#include <string>

#include "sim/replay/replay_options.h"
#include "sim/replay/sorted_arrivals.h"
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

  StreamFacts facts;     // of the requests replayed
  LoadScalingInfo load;  // how their load was scaled

 private:
  std::unique_ptr<RequestStream> open_trace() const;   // sorted if asked, in the window
  std::unique_ptr<RequestStream> open_scaled() const;  // the window, stretched

  const ReplayOptions& options_;
  std::string path_, format_, name_;
  std::string spooled_;                    // the copy of standard input, if any
  std::unique_ptr<ArrivalSorter> sorted_;  // --sort-arrivals
  int64_t sorted_first_ = 0;               // the sorted trace's first arrival
  StreamFacts source_;                     // --load-scaling sample: of the trace before it
  int64_t first_ = 0, period_ = 0;         // --loop-to: the scaled trace's first arrival and period
};

}  // namespace llm
