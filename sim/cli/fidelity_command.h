// `llmsim fidelity TRACE --url URL --profile FILE.json [engine args]`: how well a profile
// predicts a real engine. Replays TRACE against the server with llmbench's client (arrival times
// honoured, token-id prompts of the trace's lengths, ignore_eos so outputs have the trace's
// lengths) --real-runs times, replays the same trace in llmsim with the profile and the same
// engine arguments --sim-runs times (seeds 0 to K-1: the profile's step-time scatter draws
// differently), and prints for TTFT, TPOT, ITL and E2E at p50, p90 and p99, and for output
// throughput: the real runs' mean, their spread (max - min, in percent of the mean), the
// replays' mean (the prediction) and spread, and the prediction's signed error. An error inside the
// spread is reported as such; outside it, against the goal (10% at p50 and p90, 20% at p99 and for
// throughput; median |error| <= 5%).
// --result-json writes the table; --check-p50 PCT exits 1 when a p50 error exceeds PCT. Several
// profiles (--profile A,B) are each compared with the same real runs (one table, and one JSON
// object of an array, each), so that they are judged on the same traffic. --server-step-log FILE
// (the server's llmserve --step-log, on this machine) prices the steps the server ran during the
// real runs with each profile and predicts the trace again with the profile's step model (and
// scatter) refitted to those steps: what is left of the error then is not the step costs' (the
// profile's fit, or the machine's speed drifting since it was calibrated) but the rest of llmsim's.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "sim/cli/fidelity_report.h"

namespace llm {

// `args` excludes the "fidelity" word itself. Exit codes: 0, 1 (the real runs failed, or
// --check-p50 was exceeded), 2 (bad usage or input).
int run_fidelity_command(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err);

}  // namespace llm
