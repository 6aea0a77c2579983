#include "sim/cli/dst_command.h"

#include <chrono>
#include <cstdio>
#include <limits>
#include <ostream>

#include "core/flag_set.h"
#include "sim/dst/dst_run.h"
#include "ui/progress_bar.h"

namespace llm {
namespace {

// What the faults did over the whole run, for the coverage line.
struct Coverage {
  FaultTotals faults;
  int64_t steps = 0;
  int64_t sequences = 0;
  int64_t preemptions = 0;

  void add(const ReplayTotals& t) {
    faults.failed_steps += t.faults.failed_steps;
    faults.latency_spikes += t.faults.latency_spikes;
    for (size_t i = 0; i < kNumAbortStates; ++i) faults.aborts[i] += t.faults.aborts[i];
    const EngineTotals sum = t.sum();
    steps += sum.num_steps;
    sequences += sum.num_sequences;
    preemptions += sum.num_preemptions;
  }
};

std::string abort_counts(const FaultTotals& f) {
  std::string s;
  for (size_t i = 0; i < kNumAbortStates; ++i) {
    s += (i ? ", " : "") + std::string(abort_state_name(static_cast<AbortState>(i))) + " " +
         std::to_string(f.aborts[i]);
  }
  return s;
}

std::string coverage_line(const Coverage& c) {
  return std::to_string(c.sequences) + " sequences, " + std::to_string(c.steps) + " steps, " +
         std::to_string(c.preemptions) + " preemptions, " + std::to_string(c.faults.failed_steps) +
         " failed steps, " + std::to_string(c.faults.latency_spikes) +
         " latency spikes; aborts: " + abort_counts(c.faults);
}

std::string seconds_text(double seconds, uint64_t seeds) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.2f s, %.0f seeds/s", seconds,
                seconds > 0 ? static_cast<double>(seeds) / seconds : 0.0);
  return buf;
}

// Runs the seeds; returns the number that failed.
uint64_t run_seeds(const DstOptions& o, std::ostream& out, Coverage& coverage) {
  ProgressBar bar("dst", o.progress);
  uint64_t failures = 0;
  for (uint64_t i = 0; i < o.seeds; ++i) {
    const uint64_t seed = o.start + i;
    const DstOutcome outcome = run_dst_seed(seed);
    if (o.verbose)
      out << "seed " << seed << ": case: " << describe_dst_case(make_dst_case(seed)) << "\n";
    if (outcome.ok) {
      coverage.add(outcome.totals);
      if (o.verbose) {
        Coverage one;
        one.add(outcome.totals);
        out << "seed " << seed << ": ok: " << coverage_line(one) << "\n";
      }
    } else {
      ++failures;
      out << format_dst_failure(outcome);
    }
    bar.update(static_cast<int64_t>(i + 1), static_cast<int64_t>(o.seeds));
  }
  bar.finish();
  return failures;
}

}  // namespace

std::string format_dst_failure(const DstOutcome& o) {
  return "seed " + std::to_string(o.seed) + ": " + o.invariant + ": " + o.detail +
         "\n  replay: llmsim dst --seeds 1 --start " + std::to_string(o.seed) + " --verbose\n";
}

std::string dst_usage() {
  return R"(usage: llmsim dst --seeds N [--start S] [--verbose]

Deterministic simulation testing: for each seed S .. S+N-1, a random trace, engine configuration
and faults (failed steps, latency spikes, slow engines, client aborts, a squeezed KV cache), run to
the end with every invariant checked after every step (docs/dst.md).

  --seeds N      how many seeds to run (required)
  --start S      the first seed (0)
  --verbose      print each seed's case and figures
  --no-progress  no progress bar

Prints one line per failed seed, "seed S: INVARIANT: detail", with the command that replays it,
then the faults exercised and a summary. Exit code 0 when no seed failed, 1 otherwise.
)";
}

DstOptions parse_dst_args(const std::vector<std::string>& args) {
  DstOptions o;
  bool have_seeds = false;
  FlagSet flags("llmsim dst");
  flags
      .value({"--seeds"},
             [&](const std::string& flag, const std::string& v) {
               o.seeds = static_cast<uint64_t>(parse_int_flag(flag, v, 1));
               have_seeds = true;
             })
      .value({"--start"}, [&o](const std::string& flag,
                               const std::string& v) { o.start = parse_uint_flag(flag, v); })
      .boolean({"--verbose"}, o.verbose)
      .boolean({"--no-progress"}, o.progress, false);
  flags.parse(args);
  if (!have_seeds) throw UsageError("missing --seeds N");
  if (o.seeds - 1 > std::numeric_limits<uint64_t>::max() - o.start) {
    throw UsageError("--start: the seeds would run past 2^64 - 1");
  }
  return o;
}

int run_dst_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (wants_help(args)) {
    out << dst_usage();
    return 0;
  }
  DstOptions o;
  try {
    o = parse_dst_args(args);
  } catch (const UsageError& e) {
    return report_usage_error(err, "llmsim dst", e);
  }
  const auto start = std::chrono::steady_clock::now();
  Coverage coverage;
  const uint64_t failures = run_seeds(o, out, coverage);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out << "dst: exercised " << coverage_line(coverage) << "\n"
      << "dst: " << o.seeds << " seeds from " << o.start << ", " << failures << " failed, "
      << seconds_text(seconds, o.seeds) << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace llm
