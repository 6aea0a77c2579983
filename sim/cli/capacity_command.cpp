#include "sim/cli/capacity_command.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <sstream>
#include <thread>

#include "backends/sim/presets.h"
#include "core/clock.h"
#include "core/flag_set.h"
#include "core/flag_values.h"
#include "core/pending_file.h"
#include "sim/capacity/capacity_result.h"
#include "sim/capacity/capacity_search.h"
#include "sim/capacity/capacity_signals.h"
#include "sim/capacity/gpu_price.h"
#include "sim/cli/replay_command.h"
#include "sim/cli/sweep_command.h"
#include "sim/replay/run_in_parallel.h"
#include "sim/replay/slo.h"
#include "sim/replay/summarize_replay.h"
#include "sim/report/capacity_section.h"
#include "sim/report/figure_map.h"
#include "sim/report/html_report.h"
#include "sim/sweep/sweep_shard.h"
#include "sim/trace/trace_io.h"

namespace llm {

std::string capacity_usage() {
  return R"(usage: llmsim capacity TRACE --slo KEY=V,... [--search FLAG=V1,V2,...] [flags] [engine args]

The fewest data-parallel engines (each with its own KV cache, requests routed by --routing-policy)
that meet every SLO over TRACE, the largest arrival-rate scale one engine sustains, and the
capacity signals of the busiest hour (the hour with the most arrivals; the whole trace when it is
shorter), with an fp8 KV cache and a higher --gpu-memory-utilization replayed as what-ifs.

Method: replays on a doubling ladder (1, 2, 4, 8, 16, ... engines; for one engine's load, the
scales 2^(s/32) with s = 16 x (2^k - 1): 1x, 1.41x, 2.83x, 11.3x, ..., up while one engine meets the
SLOs, down while it misses them), then a 5-ary bisection of the bracket until its ends are
neighbours (one engine; a scale step of 2^(1/32), about 2.2%; 2^-10x to 2^10x). Four
replays per batch run in parallel; the replays chosen, and every figure printed, do not depend on
--jobs. The search assumes more engines (less load) never hurt; every replayed point is checked
and a violation is printed.

Flags:
  --slo KEY=V,...          the targets (required): latencies with a unit, ttft_p99=2s,
                           tpot_p99=100ms; counts and ratios plain, preemptions=0; the keys are
                           summary figure names (llmsim replay --slo)
  --search FLAG=V1,V2,...  engine-argument candidates, e.g. max-num-seqs=64,128,256 (repeatable:
                           every combination); the answer is the candidate needing the fewest
                           engines, the first listed on a tie
  --max-engines N          the largest number of engines tried (64)
  --jobs N                 replays run at once (the number of cores)
  --result-json FILE       {"engines", "engine_args", "slo", "at_answer", "below_answer", ...}
  --report FILE            an HTML report: each SLO figure against the number of engines
  --shard I/N --out DIR    search only the --search candidates k with k mod N == I (auto/N:
                           I from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX) and write
                           DIR/capacity-shard-I-of-N.json; llmsim capacity-merge DIR... prints
                           and writes what the unsharded run would (docs/cluster.md)
  --gpu-hour-cost C        the price of one GPU-hour: the answer's cost over the replay
                           (engines x --tensor-parallel-size GPUs x the replay's hours)

Every llmsim replay flag that shapes the run is accepted (engine arguments, --routing-policy,
--arrival-rate-scale, --seed); --data-parallel-size is what capacity searches, and replay's output
flags do not apply.
)";
}

namespace {

const char* const kCapacityValueFlags[] = {"--slo",   "--search",        "--max-engines",
                                           "--jobs",  "--result-json",   "--report",
                                           "--shard", "--gpu-hour-cost", "--out"};
const char* const kRefusedReplayFlags[] = {"--data-parallel-size",
                                           "--output-dir",
                                           "--metrics-out",
                                           "--promtool-series",
                                           "--metrics-snapshot",
                                           "--scrape-interval",
                                           "--start-time",
                                           "--fail-on-slo",
                                           "--quiet",
                                           "--otlp-out"};

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

// `capacity_flags`: this command's own flags, for an unknown flag's "did you mean".
ReplayOptions parse_replay_part(const std::vector<std::string>& args,
                                const std::vector<std::string>& capacity_flags = {}) {
  try {
    return parse_replay_args(args);
  } catch (const UsageError& e) {
    throw as_part_of(e, "llmsim replay", "llmsim capacity", capacity_flags);
  }
}

SearchAxis parse_search_axis(const std::string& text) {
  const size_t eq = text.find('=');
  SearchAxis axis;
  axis.flag = text.substr(0, eq);
  while (axis.flag.rfind('-', 0) == 0) axis.flag.erase(0, 1);
  if (eq == std::string::npos || axis.flag.empty()) {
    throw UsageError("--search: expected FLAG=V1,V2,... such as max-num-seqs=64,128, got '" + text +
                     "'");
  }
  for (const char* refused : {"data-parallel-size", "arrival-rate-scale"}) {
    if (axis.flag == refused) {
      throw UsageError("--search: " + axis.flag +
                       " is what capacity searches; give engine arguments such as max-num-seqs");
    }
  }
  const std::string list = text.substr(eq + 1);
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string value = list.substr(start, end - start);
    if (value.empty()) throw UsageError("--search: " + text + ": empty value");
    axis.values.push_back(value);
    start = end + 1;
  }
  return axis;
}

CapacityOptions parse_capacity_args(const std::vector<std::string>& args) {
  CapacityOptions o;
  o.jobs = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::string> own;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {  // the rest is positional: replay's parser takes it as it is
      o.replay_args.insert(o.replay_args.end(), args.begin() + static_cast<std::ptrdiff_t>(i),
                           args.end());
      break;
    }
    const std::string name = flag_name(args[i]);
    const bool is_own = std::find(std::begin(kCapacityValueFlags), std::end(kCapacityValueFlags),
                                  name) != std::end(kCapacityValueFlags);
    if (is_own) {
      own.push_back(args[i]);
      if (args[i].find('=') == std::string::npos && i + 1 < args.size()) own.push_back(args[++i]);
      continue;
    }
    for (const char* refused : kRefusedReplayFlags) {
      if (name == refused) {
        throw UsageError(name + (name == "--data-parallel-size"
                                     ? ": capacity searches the number of engines (see "
                                       "--max-engines)"
                                     : ": not a capacity flag (see llmsim capacity --help)"));
      }
    }
    o.replay_args.push_back(args[i]);
  }
  bool have_slo = false;
  FlagSet flags("llmsim capacity");
  flags
      .value({"--slo"},
             [&](const std::string&, const std::string& v) {
               o.slo = parse_slo(v);
               have_slo = true;
             })
      .value({"--search"},
             [&](const std::string&, const std::string& v) {
               SearchAxis axis = parse_search_axis(v);
               for (const SearchAxis& other : o.search) {
                 if (other.flag == axis.flag) {
                   throw UsageError("--search: " + axis.flag + " given twice");
                 }
               }
               o.search.push_back(std::move(axis));
             })
      .integer({"--max-engines"}, o.max_engines, 1, 4096)
      .integer({"--jobs"}, o.jobs, 1, 1024)
      .nonempty({"--result-json"}, o.result_json)
      .nonempty({"--report"}, o.report)
      .nonempty({"--out"}, o.out_dir)
      .value({"--shard"},
             [&](const std::string& flag, const std::string& v) {
               o.shard =
                   parse_sweep_shard(flag, v, [](const char* name) { return std::getenv(name); });
               o.sharded = true;
             })
      .value({"--gpu-hour-cost"}, [&](const std::string& flag, const std::string& v) {
        o.gpu_hour_cost = parse_double_above_flag(flag, v, 0);
      });
  flags.parse(own);
  o.base = parse_replay_part(o.replay_args, flags.names());
  if (!have_slo) throw UsageError("missing --slo KEY=V,... (such as ttft_p99=2s,tpot_p99=100ms)");
  if (o.sharded && o.out_dir.empty()) {
    throw UsageError("--shard: needs --out DIR (where the shard writes its record)");
  }
  if (!o.sharded && !o.out_dir.empty()) throw UsageError("--out: only with --shard I/N");
  if (o.sharded && (!o.report.empty() || !o.result_json.empty())) {
    throw UsageError(std::string(o.report.empty() ? "--result-json" : "--report") +
                     ": not with --shard (give it to llmsim capacity-merge)");
  }
  return o;
}

// One engine-argument candidate: the extra flags and the options they give.
struct Candidate {
  CapacitySettings settings;
  ReplayOptions options;
};

ReplayOptions with_flags(const CapacityOptions& o, const CapacitySettings& settings) {
  std::vector<std::string> args = o.replay_args;
  auto flags_end = std::find(args.begin(), args.end(), "--");  // flags go before a "--"
  for (const auto& [flag, value] : settings) {
    flags_end = args.insert(flags_end, "--" + flag + "=" + value) + 1;
  }
  return parse_replay_part(args);
}

std::vector<Candidate> make_candidates(const CapacityOptions& o) {
  std::vector<Candidate> out(1);
  for (const SearchAxis& axis : o.search) {
    std::vector<Candidate> next;
    for (const Candidate& c : out) {
      for (const std::string& value : axis.values) {
        Candidate d = c;
        d.settings.emplace_back(axis.flag, value);
        next.push_back(std::move(d));
      }
    }
    out = std::move(next);
    if (out.size() > 256) throw UsageError("--search: more than 256 combinations");
  }
  for (Candidate& c : out) {
    try {
      c.options = with_flags(o, c.settings);
      make_replay_config(c.options);  // refuses a configuration that cannot run
    } catch (const std::invalid_argument& e) {
      if (c.settings.empty()) throw UsageError(e.what());
      throw UsageError("--search: " + describe_settings(c.settings) + ": " + e.what());
    }
  }
  return out;
}

// Requests per second of arrivals: the requests over the span from the first arrival to the
// last (0 when they all arrive at one instant).
double arrival_rate_per_s(const Trace& trace) {
  if (trace.requests.size() < 2) return 0;
  Nanos first = trace.requests.front().arrival_ns, last = first;
  for (const TraceRequest& r : trace.requests) {
    first = std::min(first, r.arrival_ns);
    last = std::max(last, r.arrival_ns);
  }
  if (last <= first) return 0;
  return static_cast<double>(trace.requests.size()) / nanos_to_seconds(last - first);
}

CapacityPoint replay_point(const Trace& source, const ReplayOptions& o,
                           const std::vector<SloTarget>& slo) {
  // Scaled here, so that the busiest hour is the scaled trace's; the replay is llmsim replay's.
  Trace storage;
  LoadScalingInfo load;
  const Trace& trace = replayed_trace(source, o, storage, load);
  BusyWindowObserver window(busiest_hour(trace));
  CapacityPoint r;
  r.summary = summarize_scaled_replay(o, trace, load, {}, &window);
  r.slo = check_slo(r.summary, slo);
  r.met = all_met(r.slo);
  r.window = window.figures();
  return r;
}

// Replays every options of `batch` on `jobs` threads.
std::vector<CapacityPoint> replay_batch(const Trace& trace, const std::vector<ReplayOptions>& batch,
                                        const std::vector<SloTarget>& slo, int jobs) {
  std::vector<CapacityPoint> results(batch.size());
  run_in_parallel(batch.size(), jobs,
                  [&](size_t i) { results[i] = replay_point(trace, batch[i], slo); });
  return results;
}

CapacitySearch search_engines(const Trace& trace, const CapacityOptions& o, const Candidate& c) {
  CapacitySearch s;
  const BatchPredicate predicate = [&](const std::vector<int64_t>& xs) {
    std::vector<ReplayOptions> batch;
    for (int64_t n : xs) {
      batch.push_back(c.options);
      batch.back().data_parallel_size = static_cast<int32_t>(n);
    }
    const std::vector<CapacityPoint> results = replay_batch(trace, batch, o.slo, o.jobs);
    std::vector<bool> met;
    for (size_t i = 0; i < xs.size(); ++i) {
      met.push_back(results[i].met);
      s.points[xs[i]] = results[i];
    }
    return met;
  };
  s.outcome = find_first_true({1, o.max_engines, 1, 1}, predicate);
  return s;
}

// The search of "one engine misses the SLOs at step x". `one_engine` is the engine search's
// replay of one engine at the given load (step 0), reused.
CapacitySearch search_scale(const Trace& trace, const CapacityOptions& o, const Candidate& c,
                            const CapacityPoint& one_engine) {
  CapacitySearch s;
  s.points[0] = one_engine;
  const BatchPredicate predicate = [&](const std::vector<int64_t>& xs) {
    std::vector<ReplayOptions> batch;
    std::vector<int64_t> to_replay;
    for (int64_t x : xs) {
      if (s.points.count(x)) continue;
      to_replay.push_back(x);
      batch.push_back(c.options);
      batch.back().data_parallel_size = 1;
      batch.back().arrival_rate_scale = scale_at(c.options.arrival_rate_scale, x);
    }
    const std::vector<CapacityPoint> results = replay_batch(trace, batch, o.slo, o.jobs);
    for (size_t i = 0; i < to_replay.size(); ++i) s.points[to_replay[i]] = results[i];
    std::vector<bool> missed;
    for (int64_t x : xs) missed.push_back(!s.points.at(x).met);
    return missed;
  };
  s.outcome =
      find_first_true({-kScaleSteps, kScaleSteps, 0, kScaleStepsPerDoubling / 2}, predicate);
  return s;
}

// The seed's memory what-ifs for `chosen`, replayed at `engines` engines. A what-if that cannot
// run (the model does not fit, ...) is reported, not replayed.
std::vector<CapacityWhatIf> replay_what_ifs(const Trace& trace, const CapacityOptions& o,
                                            const Candidate& chosen, int64_t engines) {
  std::vector<CapacityWhatIf> what_ifs;
  const auto add = [&what_ifs](const std::string& flag, const std::string& value) {
    what_ifs.emplace_back();
    what_ifs.back().flag = flag;
    what_ifs.back().value = value;
  };
  ResolvedEngine resolved;
  make_replay_config(chosen.options, &resolved);
  if (resolved.kv_cache_dtype.rfind("fp8", 0) != 0) add("kv-cache-dtype", "fp8");
  const double utilization = chosen.options.engine.gpu_memory_utilization;
  if (utilization < 0.97) {
    add("gpu-memory-utilization", capacity_number(std::min(0.97, utilization + 0.05), "%.2f"));
  }
  std::vector<ReplayOptions> options_of;
  for (CapacityWhatIf& what_if : what_ifs) {
    CapacitySettings settings = chosen.settings;
    settings.emplace_back(what_if.flag, what_if.value);
    ReplayOptions options = chosen.options;
    try {
      options = with_flags(o, settings);
      options.data_parallel_size = static_cast<int32_t>(engines);
      make_replay_config(options);
    } catch (const std::invalid_argument& e) {
      what_if.error = e.what();
      options = chosen.options;
      options.data_parallel_size = static_cast<int32_t>(engines);
    }
    options_of.push_back(options);
  }
  const std::vector<CapacityPoint> points = replay_batch(trace, options_of, o.slo, o.jobs);
  for (size_t i = 0; i < what_ifs.size(); ++i) what_ifs[i].point = points[i];
  return what_ifs;
}

// What was asked, before any replay.
CapacityResult capacity_header(const CapacityOptions& o, const Trace& trace) {
  CapacityResult r;
  r.trace_path = o.base.trace_path;
  r.num_requests = trace.requests.size();
  r.slo = o.slo;
  r.routing_policy = o.base.routing_policy;
  r.max_engines = o.max_engines;
  r.gpu_hour_cost = o.gpu_hour_cost;
  r.trace_rate_per_s = arrival_rate_per_s(trace);
  return r;
}

// Without --gpu-hour-cost: the list price of the answer's GPU preset, when one is known
// (sim/capacity/gpu_price.h), with its provenance; none for a profile or a GPU file.
void set_default_gpu_hour_cost(const CapacityOptions& o, const EngineArgs& engine,
                               CapacityResult& r) {
  if (o.gpu_hour_cost || !engine.profile.empty()) return;
  const GpuProfile* gpu = find_gpu_preset(engine.gpu);
  if (!gpu) return;
  if (const std::optional<GpuPrice> price = gpu_list_price(gpu->name)) {
    r.gpu_hour_cost = price->usd_per_gpu_hour;
    r.gpu_hour_cost_source = gpu->name + " list price: " + describe_gpu_price(*price);
  }
}

// The answer among r.candidates (their engine searches done; the cheapest, the first on a tie),
// then for its candidate one engine's arrival-rate search and the memory what-ifs.
void finish_capacity(const CapacityOptions& o, const Trace& trace,
                     const std::vector<Candidate>& candidates, CapacityResult& r) {
  r.best = candidates.size();
  for (size_t i = 0; i < r.candidates.size(); ++i) {
    const auto& answer = r.candidates[i].engines.outcome.first_true;
    if (answer && (r.best == candidates.size() ||
                   *answer < *r.candidates[r.best].engines.outcome.first_true)) {
      r.best = i;
    }
  }
  const Candidate& chosen = candidates[r.best == candidates.size() ? 0 : r.best];
  r.base_scale = chosen.options.arrival_rate_scale;
  r.tensor_parallel = chosen.options.engine.tensor_parallel_size;
  r.scale = search_scale(trace, o, chosen, r.shown().engines.points.at(1));
  r.kv_blocks_fixed = chosen.options.engine.num_gpu_blocks_override.has_value();
  set_default_gpu_hour_cost(o, chosen.options.engine, r);
  r.what_ifs = replay_what_ifs(trace, o, chosen, r.signal_engines());
}

// Every replay of `llmsim capacity`: each candidate's engine search (the answer is the cheapest,
// the first on a tie), then for the answer's candidate one engine's arrival-rate search and the
// memory what-ifs at the signals' number of engines.
CapacityResult compute_capacity(const CapacityOptions& o, const Trace& trace) {
  const std::vector<Candidate> candidates = make_candidates(o);
  CapacityResult r = capacity_header(o, trace);
  for (size_t i = 0; i < candidates.size(); ++i) {
    r.candidates.push_back({candidates[i].settings, search_engines(trace, o, candidates[i])});
  }
  finish_capacity(o, trace, candidates, r);
  return r;
}

// --report: the SLO figures of every engine count replayed for the chosen candidate, against the
// targets, in the HTML report of sim/report/.
void write_capacity_report(const CapacityOptions& o, const std::vector<std::string>& args,
                           const CapacityResult& result) {
  std::vector<CapacityReportPoint> points;
  for (const auto& [n, point] : result.shown().engines.points) {
    points.push_back({static_cast<int32_t>(n), summary_figure_map(point.summary)});
  }
  std::map<std::string, double> targets;
  for (const SloTarget& t : o.slo) targets[t.key] = t.target;
  HtmlReport report;
  report.title = "llmsim capacity";
  std::vector<std::string> command = {"capacity"};
  command.insert(command.end(), args.begin(), args.end());
  report.command_line = shell_command_line("llmsim", command);
  report.trace_name = std::filesystem::path(o.base.trace_path).filename().string();
  const std::optional<int64_t> engines = result.engines();
  const std::optional<double> sustained = result.sustained_scale();
  report.facts.emplace_back("Engines meeting every SLO",
                            engines ? std::to_string(*engines) : "none up to --max-engines");
  report.facts.emplace_back("SLO", describe_slo(o.slo));
  report.facts.emplace_back("Winning configuration", describe_settings(result.shown().settings) +
                                                         ", routing " + result.routing_policy);
  if (const std::optional<int64_t> gpus = result.gpus()) {
    report.facts.emplace_back("GPUs", std::to_string(*gpus) + " (" + std::to_string(*engines) +
                                          " engine(s) x tensor parallel " +
                                          std::to_string(result.tensor_parallel) + ")");
    report.facts.emplace_back("GPU-hours over the replay", capacity_number(*result.gpu_hours()));
    if (const std::optional<double> cost = result.cost()) {
      report.facts.emplace_back(
          "Cost",
          capacity_number(*cost, "%.2f") + " at " + capacity_number(*result.gpu_hour_cost) +
              " per GPU-hour" +
              (result.gpu_hour_cost_source.empty() ? ""
                                                   : " (" + result.gpu_hour_cost_source + ")"));
    }
  }
  report.facts.emplace_back("One engine's largest arrival-rate scale",
                            sustained ? capacity_number(*sustained) + "x the trace's (" +
                                            capacity_number(*sustained * result.trace_rate_per_s) +
                                            " requests/s)"
                                      : "none");
  const int64_t signal_engines = result.signal_engines();
  const CapacityPoint& signal_point = result.shown().engines.points.at(signal_engines);
  report.facts.emplace_back(
      "Busiest-hour pattern at " + std::to_string(signal_engines) + " engine(s)",
      capacity_verdict_pattern(signal_point.window, signal_point.met));
  report.facts.emplace_back("Replays of the engine search", std::to_string(points.size()));
  report.sections.push_back(capacity_section(points, targets));
  PendingFile file("--report", o.report);
  file.stream() << render_html_report(report);
  file.commit();
}

// --- Sharded capacity searches: shard I/N searches candidate k when k mod N == I ---------------

constexpr const char* kCapacityShardFormat = "llmsim-capacity-shard/1";

std::string capacity_record_name(const SweepShard& shard) {
  return "capacity-" + shard_record_name(shard);
}

// The arguments that make two command lines the same capacity question.
std::vector<std::string> capacity_identity_args(const std::vector<std::string>& args) {
  return without_flags(args, {"--shard", "--out", "--jobs", "--report", "--result-json"});
}

// --shard: the engine searches of the shard's candidates; DIR/capacity-shard-I-of-N.json records
// each one's answer (its fewest engines, or none).
int run_capacity_shard(const CapacityOptions& o, const std::vector<std::string>& args,
                       const Trace& trace, std::ostream& out) {
  const std::vector<Candidate> candidates = make_candidates(o);
  nlohmann::ordered_json doc;
  doc["format"] = kCapacityShardFormat;
  doc["shard"] = o.shard.index;
  doc["shards"] = o.shard.count;
  doc["args"] = args;
  doc["candidates"] = candidates.size();
  doc["answers"] = nlohmann::ordered_json::array();
  for (size_t k : shard_points(candidates.size(), o.shard)) {
    const CapacitySearch search = search_engines(trace, o, candidates[k]);
    const auto& answer = search.outcome.first_true;
    doc["answers"].push_back(
        {{"index", k},
         {"engines", answer ? nlohmann::ordered_json(*answer) : nlohmann::ordered_json(nullptr)}});
    out << "capacity shard " << shard_label(o.shard) << ": "
        << describe_settings(candidates[k].settings) << ": "
        << (answer ? std::to_string(*answer) + " engine(s)" : "none") << "\n";
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec) throw UsageError("--out: cannot create " + o.out_dir + ": " + ec.message());
  PendingFile file("--out", std::filesystem::path(o.out_dir) / capacity_record_name(o.shard));
  file.stream() << doc.dump(1) << "\n";
  file.commit();
  return 0;
}

struct CapacityRecord {
  std::filesystem::path file;
  SweepShard shard;
  std::vector<std::string> args;
  size_t candidates = 0;
  std::map<size_t, std::optional<int64_t>> answers;
};

// A failure of the shards' records: nothing is written, exit code 1.
struct CapacityMergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

CapacityRecord read_capacity_record(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  try {
    const nlohmann::json doc = nlohmann::json::parse(text.str());
    if (!doc.is_object() || doc.value("format", "") != kCapacityShardFormat) {
      throw std::invalid_argument("not a capacity shard record");
    }
    CapacityRecord r;
    r.file = file;
    r.shard = {doc.at("shard").get<int>(), doc.at("shards").get<int>()};
    r.args = doc.at("args").get<std::vector<std::string>>();
    r.candidates = doc.at("candidates").get<size_t>();
    for (const auto& a : doc.at("answers")) {
      const auto& e = a.at("engines");
      r.answers[a.at("index").get<size_t>()] =
          e.is_null() ? std::nullopt : std::optional<int64_t>(e.get<int64_t>());
    }
    if (file.filename() != capacity_record_name(r.shard)) {
      throw std::invalid_argument("records shard " + shard_label(r.shard));
    }
    return r;
  } catch (const std::exception& e) {
    throw CapacityMergeError(file.string() + ": " + e.what());
  }
}

// One record per shard, of one question; every shard there.
std::vector<CapacityRecord> capacity_records(const std::vector<std::string>& dirs, int expected) {
  static const std::regex kName(R"(capacity-shard-([0-9]+)-of-([0-9]+)\.json)");
  std::vector<CapacityRecord> found;
  for (const std::string& dir : dirs) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (std::regex_match(e.path().filename().string(), kName)) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) found.push_back(read_capacity_record(f));
  }
  std::string where;
  for (const std::string& d : dirs) where += (where.empty() ? "" : ", ") + d;
  if (found.empty() && expected == 0) {
    throw CapacityMergeError("no capacity shard records (capacity-shard-I-of-N.json) in " + where);
  }
  const int count = expected > 0 ? expected : found.front().shard.count;
  std::vector<std::optional<CapacityRecord>> by_index(static_cast<size_t>(count));
  const std::vector<std::string> identity =
      found.empty() ? std::vector<std::string>{} : capacity_identity_args(found.front().args);
  const std::string first = found.empty() ? "" : found.front().file.string();
  for (CapacityRecord& r : found) {
    if (r.shard.count != count) {
      throw CapacityMergeError(r.file.string() + " is shard " + shard_label(r.shard) +
                               " of another split (" + std::to_string(count) + " shards)");
    }
    if (capacity_identity_args(r.args) != identity) {
      throw CapacityMergeError(r.file.string() + ": not the same capacity question as " + first);
    }
    auto& slot = by_index[static_cast<size_t>(r.shard.index)];
    if (slot) {
      throw CapacityMergeError("shard " + shard_label(r.shard) + " is there twice: " +
                               slot->file.string() + " and " + r.file.string());
    }
    slot = std::move(r);
  }
  std::string missing;
  for (int i = 0; i < count; ++i) {
    if (!by_index[static_cast<size_t>(i)]) {
      missing += (missing.empty() ? "" : ", ") + shard_label({i, count});
    }
  }
  if (!missing.empty()) {
    throw CapacityMergeError("missing shard(s) " + missing + " (no capacity-shard-I-of-" +
                             std::to_string(count) + ".json in " + where +
                             "): failed, cancelled or not run");
  }
  std::vector<CapacityRecord> records;
  for (auto& r : by_index) records.push_back(std::move(*r));
  return records;
}

// The arrival-rate search stretches time (under --load-scaling stretch, the default): say so
// when the trace's requests arrive in bursts, as llmsim replay does for --arrival-rate-scale.
// A shard runs only the engine search, which scales nothing unless --arrival-rate-scale is given.
void warn_if_stretching_bursts(const CapacityOptions& o, const Trace& trace,
                               const std::string& program, std::ostream& err) {
  if (o.base.load_scaling != LoadScalingMode::kStretch) return;
  if (o.sharded && o.base.arrival_rate_scale == 1.0) return;
  const std::string scaling =
      o.sharded
          ? "--arrival-rate-scale " + capacity_number(o.base.arrival_rate_scale) + " stretches time"
          : "the search for one engine's largest --arrival-rate-scale stretches time";
  if (const std::string w = stretch_warning(arrival_bursts(trace), scaling); !w.empty()) {
    err << program << ": warning: " << w << "\n";
  }
}

}  // namespace

int run_capacity_command(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err) {
  if (wants_help(args)) {
    out << capacity_usage();
    return 0;
  }
  try {
    const CapacityOptions o = parse_capacity_args(args);
    const Trace trace = read_trace_file(o.base.trace_path);
    warn_if_stretching_bursts(o, trace, "llmsim capacity", err);
    if (o.sharded) return run_capacity_shard(o, args, trace, out);
    const CapacityResult result = compute_capacity(o, trace);
    out << format_capacity(result);
    if (!o.report.empty()) write_capacity_report(o, args, result);
    if (!o.result_json.empty()) {
      PendingFile file("--result-json", o.result_json);
      file.stream() << capacity_json(result).dump(2) << "\n";
      file.commit();
    }
    return 0;
  } catch (const TraceError& e) {
    return report_usage_error(err, "llmsim capacity", e);
  } catch (const std::invalid_argument& e) {  // UsageError included
    return report_usage_error(err, "llmsim capacity", e);
  } catch (const std::exception& e) {
    err << "llmsim capacity: " << e.what() << "\n";
    return 1;
  }
}

std::string capacity_merge_usage() {
  return R"(usage: llmsim capacity-merge DIR... [--shards N] [--result-json FILE] [--report FILE] [--jobs N]

Joins the shards of one capacity question (llmsim capacity ... --shard I/N --out DIR: shard I
searches the fewest engines of the --search candidates k with k mod N == I) and prints and writes
what the unsharded llmsim capacity prints and writes, byte for byte: the answer's engine search
is replayed again here (the same replays, so the same figures), then one engine's arrival-rate
search and the what-ifs. A shard missing, found twice or of another question is named and
nothing is written (exit code 1). See docs/cluster.md.
)";
}

int run_capacity_merge_command(const std::vector<std::string>& args, std::ostream& out,
                               std::ostream& err) {
  if (wants_help(args)) {
    out << capacity_merge_usage();
    return 0;
  }
  std::vector<std::string> dirs;
  std::string result_json, report;
  int shards = 0;
  int jobs = 0;
  try {
    FlagSet flags("llmsim capacity-merge");
    flags.positional([&](const std::string& d) { dirs.push_back(d); })
        .nonempty({"--result-json"}, result_json)
        .nonempty({"--report"}, report)
        .integer({"--shards"}, shards, 1, 100000)
        .integer({"--jobs"}, jobs, 1, 1024);
    flags.parse(args);
    if (dirs.empty()) throw UsageError("expected the shards' output folders (DIR...)");
    for (const std::string& d : dirs) {
      if (!std::filesystem::is_directory(d)) throw UsageError(d + ": not a folder");
    }
  } catch (const std::invalid_argument& e) {
    return report_usage_error(err, "llmsim capacity-merge", e);
  }
  try {
    const std::vector<CapacityRecord> records = capacity_records(dirs, shards);
    std::vector<std::string> command = without_flags(records.front().args, {"--shard", "--out"});
    if (!result_json.empty()) command = with_flag(command, "--result-json", result_json);
    if (!report.empty()) command = with_flag(command, "--report", report);
    CapacityOptions o;
    try {
      o = parse_capacity_args(jobs > 0 ? with_flag(command, "--jobs", std::to_string(jobs))
                                       : command);
    } catch (const std::exception& e) {
      throw CapacityMergeError(records.front().file.string() + ": its arguments: " + e.what());
    }
    const Trace trace = read_trace_file(o.base.trace_path);
    warn_if_stretching_bursts(o, trace, "llmsim capacity-merge", err);
    const std::vector<Candidate> candidates = make_candidates(o);
    CapacityResult r = capacity_header(o, trace);
    for (const CapacityRecord& rec : records) {
      if (rec.candidates != candidates.size()) {
        throw CapacityMergeError(rec.file.string() + ": " + std::to_string(rec.candidates) +
                                 " candidates, the question has " +
                                 std::to_string(candidates.size()));
      }
    }
    for (size_t k = 0; k < candidates.size(); ++k) {
      const CapacityRecord& rec = records[k % records.size()];
      const auto it = rec.answers.find(k);
      if (it == rec.answers.end()) {
        throw CapacityMergeError(rec.file.string() + ": no answer for candidate " +
                                 std::to_string(k));
      }
      CapacityCandidate c{candidates[k].settings, {}};
      c.engines.outcome.first_true = it->second;
      r.candidates.push_back(std::move(c));
    }
    // The answer's full search (its points are in the outputs), replayed as its shard did.
    size_t shown = 0;
    for (size_t k = 0; k < r.candidates.size(); ++k) {
      const auto& a = r.candidates[k].engines.outcome.first_true;
      const auto& b = r.candidates[shown].engines.outcome.first_true;
      if (a && (!b || *a < *b)) shown = k;
    }
    r.candidates[shown].engines = search_engines(trace, o, candidates[shown]);
    finish_capacity(o, trace, candidates, r);
    out << format_capacity(r);
    // The unsharded run's command line, for the report: without --jobs only if it had none.
    if (!o.report.empty()) write_capacity_report(o, command, r);
    if (!o.result_json.empty()) {
      PendingFile file("--result-json", o.result_json);
      file.stream() << capacity_json(r).dump(2) << "\n";
      file.commit();
    }
    return 0;
  } catch (const TraceError& e) {
    err << "llmsim capacity-merge: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << "llmsim capacity-merge: " << e.what() << "; nothing was written\n";
    return 1;
  }
}

}  // namespace llm
