// `llmsim dst --seeds N [--start S] [--verbose]`: deterministic simulation testing. Runs the cases
// of seeds S .. S+N-1 (sim/dst/dst_case.h: a random trace, engine configuration and faults per
// seed) to their end, with the invariants of sim/dst/invariants.h checked after every step.
// Prints, for each failed seed, "seed S: INVARIANT: detail" and the command that replays exactly
// that seed; then the faults the run exercised and a summary line (seeds, failures, seconds,
// seeds/s). --verbose also prints every seed's case and figures.
// Exit codes: 0 when no seed failed, 1 when one did, 2 for bad usage.
// The summary's seconds are the one real-clock read of this command, for display only: no seed's
// outcome depends on it.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/dst/dst_run.h"

namespace llm {

struct DstOptions {
  uint64_t seeds = 0;  // how many (required, >= 1)
  uint64_t start = 0;  // the first seed
  bool verbose = false;
  bool progress = true;  // progress bar on stderr when it is a terminal
};

// Parses the arguments after "dst". Throws UsageError naming the flag.
DstOptions parse_dst_args(const std::vector<std::string>& args);
std::string dst_usage();

// The two lines of a failed seed: "seed S: INVARIANT: detail" and the command that replays it.
std::string format_dst_failure(const DstOutcome& outcome);

// `llmsim dst ARGS` (args exclude "dst").
int run_dst_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace llm
