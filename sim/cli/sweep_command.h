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
#include "sim/sweep/sweep_results.h"
#include "sim/sweep/sweep_shard.h"

namespace llm {

struct SweepOptions {
  std::vector<SweepAxis> axes;
  std::string sort_by = "ttft_p99";
  int jobs = 0;                          // 0: the core count
  std::string out_dir;                   // empty: no files
  std::string report;                    // --report FILE: the HTML report
  std::vector<std::string> replay_args;  // TRACE and the fixed replay flags
  ReplayOptions base;                    // replay_args parsed
  std::vector<std::string> args;         // as given, for the shard record
  bool sharded = false;                  // --shard I/N: only the shard's points
  SweepShard shard;
  int emit_shards = 0;  // --shards N (with --emit)
  std::string emit;     // --emit slurm|k8s: write the cluster job files instead of running
  std::string image = "llmserve:latest";  // --image (--emit k8s)
};

// Parses the arguments after "sweep": its own flags, the rest as replay arguments. Checks every
// --set value against the replay flags (alone, on top of the fixed flags). Throws UsageError.
// `env` resolves --shard auto/N (sim/sweep/sweep_shard.h).
SweepOptions parse_sweep_args(const std::vector<std::string>& args, const EnvLookup& env = {});

// The arguments that make two command lines the same sweep: `args` without the flags that only
// say where and how a run goes (--shard, --shards, --emit, --image, --out, --report, --jobs,
// --quiet, --no-progress). The shards merged together must agree on these.
std::vector<std::string> sweep_identity_args(const std::vector<std::string>& args);

// `args` with `flag`'s value replaced by `value` (appended, flag and value, when absent), and
// with the flags in `drop` (and their values) removed; before a "--".
std::vector<std::string> with_flag(std::vector<std::string> args, const std::string& flag,
                                   const std::string& value);
std::vector<std::string> without_flags(const std::vector<std::string>& args,
                                       const std::vector<std::string>& drop);

// DIR/sweep.csv and DIR/sweep.json (each written whole or not at all).
void write_sweep_tables(const SweepOutcome& outcome, const std::string& dir);

// The --report HTML page; `args` is the sweep's command line after "sweep".
void write_sweep_report(const SweepOutcome& outcome, const std::vector<std::string>& args,
                        const std::string& path);

// Exit code and stderr lines for the failed points: 1 ("point DIR failed: REASON") when any.
int report_failed_points(const SweepOutcome& outcome, const std::string& program,
                         std::ostream& err);

// Each grid point's replay options; a point whose combination of values is refused gets its
// reason in `errors` (same index) instead.
std::vector<ReplayOptions> sweep_point_options(const SweepOptions& options,
                                               const std::vector<SweepPoint>& points,
                                               std::vector<std::string>& errors);

std::string sweep_usage();

// `llmsim sweep ARGS` (args exclude "sweep").
int run_sweep_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace llm
