#include "sim/cli/sweep_command.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <set>
#include <thread>

#include "core/flag_set.h"
#include "core/pending_file.h"
#include "sim/cli/sweep_emit.h"
#include "sim/replay/summary_figures.h"
#include "sim/report/figure_map.h"
#include "sim/report/html_report.h"
#include "sim/report/slo_table_section.h"
#include "sim/report/sweep_section.h"
#include "sim/sweep/sweep_results.h"
#include "sim/sweep/sweep_runner.h"
#include "sim/sweep/sweep_shard_record.h"
#include "sim/trace/trace_io.h"
#include "ui/progress_bar.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

// Sweep flags; every other argument is a replay argument.
const std::set<std::string> kSweepFlags = {"--set",   "--jobs",   "--sort", "--out",  "--report",
                                           "--shard", "--shards", "--emit", "--image"};

// The flags that say where and how a sweep runs, not which sweep it is.
const std::set<std::string> kPlacementFlags = {"--shard", "--shards", "--emit", "--image",
                                               "--out",   "--report", "--jobs"};
const std::set<std::string> kPlacementSwitches = {"--quiet", "--no-progress"};

// Replay flags that a sweep cannot vary: its outputs (one per point would collide) and display.
const std::set<std::string> kUnsweepable = {"output-dir",
                                            "metrics-out",
                                            "promtool-series",
                                            "metrics-snapshot",
                                            "quiet",
                                            "no-progress",
                                            "help",
                                            "set",
                                            "report",
                                            "slo",
                                            "fail-on-slo",
                                            "jobs",
                                            "sort",
                                            "out",
                                            "shard",
                                            "shards",
                                            "emit",
                                            "image",
                                            "metric-percentiles"};

// Splits `args` into the sweep's flags (with their values) and the replay arguments.
void split_args(const std::vector<std::string>& args, std::vector<std::string>& sweep,
                std::vector<std::string>& replay) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      replay.insert(replay.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      return;
    }
    if (!kSweepFlags.count(flag_name(args[i]))) {
      replay.push_back(args[i]);
      continue;
    }
    sweep.push_back(args[i]);
    if (args[i].find('=') == std::string::npos && i + 1 < args.size()) sweep.push_back(args[++i]);
  }
}

bool given_outside_set(const std::vector<std::string>& replay_args, const std::string& flag) {
  for (const std::string& arg : replay_args) {
    if (arg == "--") return false;
    const std::string name = flag_name(arg);
    if (name == "--" + flag || name == "--no-" + flag) return true;
  }
  return false;
}

// `args` with `flags` added before a "--" (after it they would be positional arguments).
std::vector<std::string> with(std::vector<std::string> args,
                              const std::vector<std::string>& flags) {
  args.insert(std::find(args.begin(), args.end(), "--"), flags.begin(), flags.end());
  return args;
}

// The options of `args`, resolved as the replay would (presets, profiles, contradictions).
ReplayOptions checked_replay_options(const std::vector<std::string>& args) {
  ReplayOptions o = parse_replay_args(args);
  make_replay_config(o);
  o.quiet = true;
  o.progress = false;
  return o;
}

bool has_flag(const std::vector<std::string>& args, const std::string& flag) {
  return std::any_of(args.begin(), args.end(),
                     [&flag](const std::string& a) { return flag_name(a) == flag; });
}

// --shard, --shards, --emit and --image together with --out and --report.
void check_placement(const SweepOptions& o, const std::vector<std::string>& sweep_args) {
  if (o.sharded) {
    if (o.out_dir.empty()) {
      throw UsageError("--shard: needs --out DIR (where the shard writes its points and record)");
    }
    if (!o.report.empty()) {
      throw UsageError("--report: not with --shard (give it to llmsim sweep-merge)");
    }
    if (!o.emit.empty()) throw UsageError("--shard: not with --emit (the emitted jobs shard)");
  }
  if (!o.emit.empty()) {
    if (o.emit_shards == 0) throw UsageError("--emit: needs --shards N");
    if (o.out_dir.empty()) {
      throw UsageError("--emit: needs --out DIR (the job files and the results go there)");
    }
  } else if (o.emit_shards != 0) {
    throw UsageError("--shards: needs --emit slurm|k8s (to run one shard here: --shard I/N)");
  }
  if (has_flag(sweep_args, "--image") && o.emit != "k8s") {
    throw UsageError("--image: only with --emit k8s");
  }
}

void check_axis(const SweepOptions& o, const SweepAxis& axis) {
  const std::string where = "--set " + axis.spec + ": ";
  if (kUnsweepable.count(axis.flag)) {
    throw UsageError(where + "--" + axis.flag +
                     " cannot be swept (outputs, display and SLOs are the sweep's own: " +
                     "--out DIR, --quiet, --no-progress, --slo)");
  }
  if (given_outside_set(o.replay_args, axis.flag)) {
    throw UsageError(where + "--" + axis.flag + " is also given outside --set");
  }
  for (const std::string& value : axis.values) {
    try {
      checked_replay_options(with(o.replay_args, sweep_setting_args({axis.flag, value})));
    } catch (const std::invalid_argument& e) {
      std::string message = where + e.what();
      if (message.find("takes no value") != std::string::npos) {
        message += " (a switch: sweep it with true,false)";
      }
      throw UsageError(message);
    }
  }
}

}  // namespace

std::string sweep_usage() {
  return R"(usage: llmsim sweep TRACE --set FLAG=V1,V2,... [--set ...] [flags] [engine args]

Replays TRACE at every combination of the --set values, each point exactly as `llmsim replay`
with those flags would, on several threads, and prints the points best first.
  --set FLAG=V1,V2,...   a replay flag without its dashes and the values to try (max-num-seqs,
                         max-num-batched-tokens, kv-cache-dtype, gpu-memory-utilization,
                         data-parallel-size, routing-policy, arrival-rate-scale, gpu, model,
                         profile, ...); switches take true,false (async-scheduling=true,false)
  --sort KEY             the figure to rank by, best first (ttft_p99); any summary figure:
                         ttft_p50, tpot_p99, itl_p99, e2e_p99, queue_p99, preemptions,
                         output_tokens_per_s, ... (higher is better for throughputs)
  --slo KEY=V,...        SLO targets as in llmsim replay (ttft_p99=2s,tpot_p99=100ms): each
                         point is marked met or MISSED and those meeting all rank first
  --jobs N               replays at a time (the number of cores)
  --out DIR              write DIR/sweep.csv, DIR/sweep.json and DIR/POINT/summary.json
  --report FILE          an HTML report: the sort figure against each swept flag
  --quiet                no table
  --no-progress          no progress bar
  --shard I/N            run only shard I of N (grid point k is shard k mod N's) and write its
                         points' summaries and DIR/shard-I-of-N.json under --out; then
                         `llmsim sweep-merge DIR... --out DIR` writes what one run would.
                         auto/N takes I from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX
  --shards N --emit slurm|k8s
                         run nothing: write into --out DIR a Slurm job array (sweep.sbatch) or
                         Kubernetes Indexed Job (sweep-shards.yaml, sweep-merge.yaml) of N shards
                         and their merge (docs/cluster.md)
  --image IMAGE          the container image of --emit k8s (llmserve:latest)
Every other flag is a replay flag (llmsim replay --help) fixed for all points. A bad --set
value exits 2 before anything runs; a point that fails is reported as failed with its reason,
the others still run, and the exit code is 1.
)";
}

SweepOptions parse_sweep_args(const std::vector<std::string>& args, const EnvLookup& env) {
  SweepOptions o;
  o.args = args;
  std::vector<std::string> sweep_args;
  split_args(args, sweep_args, o.replay_args);
  FlagSet flags("llmsim sweep");
  flags
      .value({"--set"}, [&o](const std::string&,
                             const std::string& v) { o.axes.push_back(parse_sweep_axis(v)); })
      .value({"--sort"},
             [&o](const std::string& flag, const std::string& v) {
               if (!summary_figure(ReplaySummary{}, v)) {
                 std::string keys;
                 for (const std::string& key : summary_figure_keys()) {
                   keys += (keys.empty() ? "" : ", ") + key;
                 }
                 throw UsageError(flag + ": unknown figure '" + v + "' (expected one of " + keys +
                                  ")");
               }
               o.sort_by = v;
             })
      .integer({"--jobs"}, o.jobs, 1, 1024)
      .nonempty({"--out"}, o.out_dir)
      .nonempty({"--report"}, o.report)
      .value({"--shard"},
             [&](const std::string& flag, const std::string& v) {
               o.shard = parse_sweep_shard(flag, v, env);
               o.sharded = true;
             })
      .integer({"--shards"}, o.emit_shards, 1, 100000)
      .value({"--emit"},
             [&o](const std::string& flag, const std::string& v) {
               if (v != "slurm" && v != "k8s") {
                 throw UsageError(flag + ": expected slurm or k8s, got '" + v + "'");
               }
               o.emit = v;
             })
      .nonempty({"--image"}, o.image);
  flags.parse(sweep_args);
  check_placement(o, sweep_args);
  try {
    o.base = parse_replay_args(o.replay_args);
  } catch (const UsageError& e) {  // an unknown flag points at this command's help
    throw as_part_of(e, "llmsim replay", "llmsim sweep", flags.names());
  }
  if (o.base.fail_on_slo) {
    throw UsageError(
        "--fail-on-slo: not for llmsim sweep (--slo ranks the points meeting every target first)");
  }
  for (const auto& [given, flag] : {std::pair{!o.base.output_dir.empty(), "--output-dir"},
                                    {!o.base.metrics_out.empty(), "--metrics-out"},
                                    {!o.base.promtool_series.empty(), "--promtool-series"},
                                    {!o.base.metrics_snapshot.empty(), "--metrics-snapshot"},
                                    {!o.base.otlp_out.empty(), "--otlp-out"}}) {
    if (given) {
      throw UsageError(std::string(flag) +
                       ": not for llmsim sweep (--out DIR writes each point's summary.json)");
    }
  }
  expand_sweep_grid(o.axes);  // no --set, or a flag swept twice
  make_replay_config(o.base);
  for (const SweepAxis& axis : o.axes) check_axis(o, axis);
  if (o.jobs == 0) o.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return o;
}

std::vector<ReplayOptions> sweep_point_options(const SweepOptions& o,
                                               const std::vector<SweepPoint>& points,
                                               std::vector<std::string>& errors) {
  std::vector<ReplayOptions> options(points.size());
  errors.assign(points.size(), "");
  for (size_t i = 0; i < points.size(); ++i) {
    try {
      options[i] = checked_replay_options(with(o.replay_args, sweep_point_args(points[i])));
    } catch (const std::invalid_argument& e) {
      errors[i] = e.what();
    }
  }
  return options;
}

std::vector<std::string> sweep_identity_args(const std::vector<std::string>& args) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      kept.insert(kept.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    const std::string name = flag_name(args[i]);
    if (kPlacementSwitches.count(name)) continue;
    if (!kPlacementFlags.count(name)) {
      kept.push_back(args[i]);
      continue;
    }
    if (args[i].find('=') == std::string::npos) ++i;  // its value
  }
  return kept;
}

std::vector<std::string> without_flags(const std::vector<std::string>& args,
                                       const std::vector<std::string>& drop) {
  std::vector<std::string> kept;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      kept.insert(kept.end(), args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (std::find(drop.begin(), drop.end(), flag_name(args[i])) == drop.end()) {
      kept.push_back(args[i]);
    } else if (args[i].find('=') == std::string::npos) {
      ++i;
    }
  }
  return kept;
}

std::vector<std::string> with_flag(std::vector<std::string> args, const std::string& flag,
                                   const std::string& value) {
  for (size_t i = 0; i < args.size() && args[i] != "--"; ++i) {
    if (flag_name(args[i]) != flag) continue;
    if (args[i].find('=') != std::string::npos) {
      args[i] = flag + "=" + value;
    } else if (i + 1 < args.size()) {
      args[i + 1] = value;
    }
    return args;
  }
  return with(std::move(args), {flag, value});
}

// --report: the sort figure of every point against each swept flag (sim/report/).
void write_sweep_report(const SweepOutcome& outcome, const std::vector<std::string>& args,
                        const std::string& path) {
  std::vector<SweepReportPoint> points;
  for (const SweepPointResult& result : outcome.points) {
    SweepReportPoint p;
    for (const SweepSetting& setting : result.point) p.flags[setting.flag] = setting.value;
    if (result.ok) {
      p.figures = result.figures.values;
    } else {
      p.error = result.error.empty() ? "failed" : result.error;
    }
    points.push_back(std::move(p));
  }
  HtmlReport report;
  report.title = "llmsim sweep";
  std::vector<std::string> command = {"sweep"};
  command.insert(command.end(), args.begin(), args.end());
  report.command_line = shell_command_line("llmsim", command);
  report.trace_name = fs::path(outcome.trace).filename().string();
  report.facts.emplace_back("Points", std::to_string(outcome.points.size()));
  report.facts.emplace_back("Failed points", std::to_string(num_failed_points(outcome)));
  if (!outcome.faults.empty()) report.facts.emplace_back("Faults", faults_text(outcome.faults));
  if (!outcome.slo.empty()) {
    int64_t met = 0;
    for (const SweepPointResult& r : outcome.points) met += meets_slo(outcome, r);
    report.facts.emplace_back("SLO", describe_slo(outcome.slo));
    report.facts.emplace_back("Points meeting every SLO",
                              std::to_string(met) + " of " + std::to_string(outcome.points.size()));
  }
  int64_t unstable = 0;
  for (const SweepPointResult& r : outcome.points) unstable += r.ok && r.figures.unstable;
  report.facts.emplace_back("Unstable points (waiting queue grew without draining)",
                            std::to_string(unstable));
  const std::vector<size_t> ranking = sweep_ranking(outcome);
  if (!ranking.empty() && outcome.points[ranking[0]].ok) {
    report.facts.emplace_back("Best point by " + outcome.sort_by,
                              outcome.points[ranking[0]].dir_name);
  }
  report.sections.push_back(sweep_section(points, outcome.sort_by));
  if (!outcome.slo.empty()) {
    std::vector<SloTableRow> rows;
    for (size_t i : ranking) {
      const SweepPointResult& result = outcome.points[i];
      SloTableRow row{result.dir_name, {}, result.figures.slo, ""};
      for (const SweepSetting& s : result.point) row.flags.emplace_back(s.flag, s.value);
      if (!result.ok) row.error = result.error.empty() ? "failed" : result.error;
      rows.push_back(std::move(row));
    }
    report.sections.push_back(slo_table_section(outcome.slo, rows));
  }
  PendingFile file("--report", path);
  file.stream() << render_html_report(report);
  file.commit();
}

void write_sweep_tables(const SweepOutcome& outcome, const std::string& dir) {
  PendingFile csv("--out", fs::path(dir) / "sweep.csv");
  csv.stream() << format_sweep_csv(outcome);
  PendingFile json("--out", fs::path(dir) / "sweep.json");
  json.stream() << format_sweep_json(outcome);
  csv.commit();
  json.commit();
}

int report_failed_points(const SweepOutcome& outcome, const std::string& program,
                         std::ostream& err) {
  int code = 0;
  for (const SweepPointResult& result : outcome.points) {
    if (result.ok) continue;
    err << program << ": point " << result.dir_name << " failed: " << result.error << "\n";
    code = 1;
  }
  return code;
}

namespace {

// Each point's DIR/POINT/summary.json.
void write_point_summaries(const SweepOutcome& outcome, const std::string& dir) {
  for (const SweepPointResult& result : outcome.points) {
    if (!result.ok) continue;
    const fs::path point_dir = fs::path(dir) / result.dir_name;
    std::error_code ec;
    fs::create_directories(point_dir, ec);
    if (ec)
      throw std::runtime_error("--out: cannot create " + point_dir.string() + ": " + ec.message());
    PendingFile summary("--out", point_dir / "summary.json");
    summary.stream() << format_summary_json(result.summary);
    summary.commit();
  }
}

// --shard: DIR/shard-I-of-N.json, last, once every point's summary is in place.
void write_shard_record(const SweepOptions& options, const SweepOutcome& outcome,
                        const std::vector<size_t>& indices, size_t grid_points) {
  SweepShardRecord record;
  record.shard = options.shard;
  record.args = options.args;
  record.grid_points = grid_points;
  record.indices = indices;
  record.points = outcome.points;
  for (SweepPointResult& p : record.points) p.summary = ReplaySummary{};
  PendingFile file("--out", fs::path(options.out_dir) / shard_record_name(options.shard));
  file.stream() << format_shard_record(record);
  file.commit();
}

}  // namespace

int run_sweep_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (wants_help(args)) {
    out << sweep_usage();
    return 0;
  }
  SweepOptions options;
  SweepOutcome outcome;
  std::vector<ReplayOptions> point_options;
  std::vector<size_t> indices;  // the grid index of each of outcome.points
  size_t grid_points = 0;
  Trace trace;
  try {
    options = parse_sweep_args(args, [](const char* name) { return std::getenv(name); });
    const std::vector<SweepPoint> points = expand_sweep_grid(options.axes);
    grid_points = points.size();
    std::vector<std::string> errors;
    std::vector<ReplayOptions> all_options = sweep_point_options(options, points, errors);
    if (!options.out_dir.empty()) {
      std::error_code ec;
      fs::create_directories(options.out_dir, ec);
      if (ec) throw UsageError("--out: cannot create " + options.out_dir + ": " + ec.message());
    }
    if (!options.emit.empty()) {
      for (const std::string& file : emit_sweep_jobs(options)) {
        out << "llmsim sweep: wrote " << file << "\n";
      }
      out << emit_submit_hint(options);
      return 0;
    }
    trace = read_trace_file(options.base.trace_path);
    std::vector<double> stretched;  // the points' --arrival-rate-scale under --load-scaling stretch
    for (const ReplayOptions& p : all_options) {
      if (p.load_scaling == LoadScalingMode::kStretch) stretched.push_back(p.arrival_rate_scale);
    }
    if (const std::string w = stretch_warning(arrival_bursts(trace), stretched); !w.empty()) {
      err << "llmsim sweep: warning: " << w << "\n";
    }
    outcome.trace = options.base.trace_path;
    outcome.sort_by = options.sort_by;
    outcome.slo = options.base.slo;
    outcome.faults = options.base.faults;
    outcome.metric_percentiles = options.base.metric_percentiles;
    outcome.axes = options.axes;
    indices = shard_points(points.size(), options.sharded ? options.shard : SweepShard{});
    for (size_t i : indices) {
      SweepPointResult result;
      result.point = points[i];
      result.dir_name = sweep_point_dir_name(i, points.size(), points[i]);
      result.error = errors[i];
      outcome.points.push_back(std::move(result));
      point_options.push_back(std::move(all_options[i]));
    }
  } catch (const TraceError& e) {
    return report_usage_error(err, "llmsim sweep", e);
  } catch (const std::invalid_argument& e) {  // UsageError included
    return report_usage_error(err, "llmsim sweep", e);
  } catch (const std::exception& e) {  // an --emit file that could not be written
    err << "llmsim sweep: " << e.what() << "\n";
    return 1;
  }

  ProgressBar bar("sweep", options.base.progress);
  run_sweep_points(trace, point_options, outcome.points, options.jobs,
                   [&bar](int64_t done, int64_t total) { bar.update(done, total); });
  bar.finish();
  record_sweep_figures(outcome);

  if (!options.base.quiet) {
    if (options.sharded) {
      out << "llmsim sweep: shard " << shard_label(options.shard) << ", " << outcome.points.size()
          << " of the grid's " << grid_points << " points\n";
    }
    out << format_sweep_table(outcome);
  }
  const int code = report_failed_points(outcome, "llmsim sweep", err);
  if (!options.report.empty()) {
    try {
      write_sweep_report(outcome, args, options.report);
    } catch (const std::exception& e) {
      err << "llmsim sweep: " << e.what() << "\n";
      return 1;
    }
  }
  if (!options.out_dir.empty()) {
    try {
      write_point_summaries(outcome, options.out_dir);
      if (options.sharded) {
        write_shard_record(options, outcome, indices, grid_points);
      } else {
        write_sweep_tables(outcome, options.out_dir);
      }
    } catch (const std::exception& e) {
      err << "llmsim sweep: " << e.what() << "\n";
      return 1;
    }
  }
  return code;
}

}  // namespace llm
