// `llmsim sweep TRACE --set FLAG=V1,V2,... [--set ...] [engine args]`: replays TRACE at every
// combination of the swept replay flags, in parallel, each point exactly as the same
// `llmsim replay` command line; prints the points ranked by one summary figure and writes
// sweep.csv, sweep.json and each point's summary.json under --out.
// Exit codes: 0 every point ran, 1 a point failed (the others are still reported) or an output
// file could not be written, 2 bad usage, named before any replay runs.
// Thread-safety: single-threaded command-line code (the points run on worker threads).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "sim/cli/replay_command.h"
#include "sim/sweep/sweep_grid.h"

namespace llm {

struct SweepOptions {
  std::vector<SweepAxis> axes;
  std::string sort_by = "ttft_p99";
  int jobs = 0;                          // 0: the core count
  std::string out_dir;                   // empty: no files
  std::string report;                    // --report FILE: the HTML report
  std::vector<std::string> replay_args;  // TRACE and the fixed replay flags
  ReplayOptions base;                    // replay_args parsed
};

// Parses the arguments after "sweep": its own flags, the rest as replay arguments. Checks every
// --set value against the replay flags (alone, on top of the fixed flags). Throws UsageError.
SweepOptions parse_sweep_args(const std::vector<std::string>& args);

// Each grid point's replay options; a point whose combination of values is refused gets its
// reason in `errors` (same index) instead.
std::vector<ReplayOptions> sweep_point_options(const SweepOptions& options,
                                               const std::vector<SweepPoint>& points,
                                               std::vector<std::string>& errors);

std::string sweep_usage();

// `llmsim sweep ARGS` (args exclude "sweep").
int run_sweep_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace llm
