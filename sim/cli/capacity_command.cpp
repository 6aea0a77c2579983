#include "sim/cli/capacity_command.h"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "backends/sim/presets.h"
#include "core/clock.h"
#include "core/flag_values.h"
#include "core/pending_file.h"
#include "sim/capacity/capacity_result.h"
#include "sim/capacity/capacity_search.h"
#include "sim/capacity/capacity_signals.h"
#include "sim/capacity/gpu_price.h"
#include "sim/cli/capacity_run.h"
#include "sim/cli/replay_command.h"
#include "sim/cli/sweep_command.h"
#include "sim/replay/run_in_parallel.h"
#include "sim/replay/slo.h"
#include "sim/replay/summarize_replay.h"
#include "sim/report/capacity_section.h"
#include "sim/report/figure_map.h"
#include "sim/report/html_report.h"
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

}  // namespace

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

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

namespace {

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

}  // namespace

void write_capacity_outputs(const CapacityOptions& o, const std::vector<std::string>& args,
                            const CapacityResult& result, std::ostream& out) {
  out << format_capacity(result);
  if (!o.report.empty()) write_capacity_report(o, args, result);
  if (!o.result_json.empty()) {
    PendingFile file("--result-json", o.result_json);
    file.stream() << capacity_json(result).dump(2) << "\n";
    file.commit();
  }
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
    write_capacity_outputs(o, args, result, out);
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

}  // namespace llm
