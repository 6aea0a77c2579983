// The parts of `llmsim capacity` that `llmsim capacity-merge` repeats: the parsed command line
// and its engine-argument candidates (capacity_args.cpp), each candidate's engine search, the
// answer's arrival-rate search and what-ifs, the report and the bursty-trace warning
// (capacity_command.cpp), and a shard's run (capacity_merge_command.cpp). Internal to sim/cli.
// Thread-safety: the functions are called from the command's thread; the searches run their
// replays on --jobs worker threads, each with its own trace copy and engines.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "sim/capacity/capacity_result.h"
#include "sim/capacity/capacity_search.h"
#include "sim/cli/replay_command.h"
#include "sim/replay/slo.h"
#include "sim/sweep/sweep_shard.h"
#include "sim/trace/trace.h"

namespace llm {

struct SearchAxis {
  std::string flag;  // without the dashes
  std::vector<std::string> values;
};

struct CapacityOptions {
  std::vector<std::string> replay_args;  // TRACE and the replay flags, as given
  ReplayOptions base;
  std::vector<SloTarget> slo;
  std::vector<SearchAxis> search;
  int32_t max_engines = 64;
  int jobs = 1;
  std::string result_json;
  std::string report;  // --report: the HTML report of the chosen candidate's engine search
  std::optional<double> gpu_hour_cost;  // --gpu-hour-cost
  bool sharded = false;                 // --shard I/N: only the shard's candidates' searches
  SweepShard shard;
  std::string out_dir;  // --out DIR (with --shard): DIR/capacity-shard-I-of-N.json
};

// One engine-argument candidate: the extra flags and the options they give.
struct Candidate {
  CapacitySettings settings;
  ReplayOptions options;
};

// The command line of `llmsim capacity` (`args` without the "capacity" word); throws UsageError.
CapacityOptions parse_capacity_args(const std::vector<std::string>& args);

// The replay options of the command line with `settings` added as flags (before a "--").
ReplayOptions with_flags(const CapacityOptions& o, const CapacitySettings& settings);

// Every combination of the --search values, each parsed and checked as llmsim replay would run it
// (at most 256); throws UsageError naming the combination that cannot run.
std::vector<Candidate> make_candidates(const CapacityOptions& o);

// What was asked, before any replay.
CapacityResult capacity_header(const CapacityOptions& o, const Trace& trace);

// The fewest engines meeting the SLOs for candidate `c`, with every point replayed.
CapacitySearch search_engines(const Trace& trace, const CapacityOptions& o, const Candidate& c);

// The answer among r.candidates (their engine searches done; the cheapest, the first on a tie),
// then for its candidate one engine's arrival-rate search and the memory what-ifs.
void finish_capacity(const CapacityOptions& o, const Trace& trace,
                     const std::vector<Candidate>& candidates, CapacityResult& r);

// The answer as text on `out`, then --report (the SLO figures of every engine count replayed for
// the chosen candidate; `args` is the command line it names) and --result-json when asked for.
void write_capacity_outputs(const CapacityOptions& o, const std::vector<std::string>& args,
                            const CapacityResult& result, std::ostream& out);

// The warning that stretching time keeps a bursty trace's bursts (as llmsim replay's).
void warn_if_stretching_bursts(const CapacityOptions& o, const Trace& trace,
                               const std::string& program, std::ostream& err);

// --shard I/N: the engine searches of the shard's candidates, recorded in
// DIR/capacity-shard-I-of-N.json for capacity-merge.
int run_capacity_shard(const CapacityOptions& o, const std::vector<std::string>& args,
                       const Trace& trace, std::ostream& out);

}  // namespace llm
