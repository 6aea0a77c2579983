// `llmsim replay TRACE [flags]`: flag parsing (vLLM's engine-argument names, on the shared flag
// layer core/flag_set.h) into ReplayOptions (sim/replay/replay_options.h, which maps them to a
// ReplayConfig), and the run that writes requests.jsonl and summary.json atomically.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "sim/replay/replay_options.h"
#include "sim/report/html_report.h"

namespace llm {

// Parses the arguments after "replay". Throws UsageError naming the flag.
ReplayOptions parse_replay_args(const std::vector<std::string>& args);
std::string replay_usage();

// Runs a parsed replay; returns the process exit code (0, 2 for bad input, 1 for an I/O failure
// or, with fail_on_slo, a missed SLO).
// Output files are written under temporary names and renamed only when the replay succeeded.
// With `report_out` and --report, the report is not written but left in *report_out for the
// caller to extend and write (llmsim alerts adds its firing windows).
int execute_replay(const ReplayOptions& options, std::ostream& out, std::ostream& err,
                   const ProgressFn& progress = {}, HtmlReport* report_out = nullptr);

// `llmsim replay ARGS` (args exclude "replay"): --help, parsing, a progress bar on a terminal's
// stderr, and execute_replay.
int run_replay_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace llm
