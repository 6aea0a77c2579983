#include "sim/cli/fidelity_command.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <utility>

#include "backends/sim/engine_profile.h"
#include "backends/sim/resolve_engine_args.h"
#include "backends/sim/step_model.h"
#include "backends/sim/step_record.h"
#include "calibrate/prometheus_text.h"
#include "calibrate/step_fit.h"
#include "calibrate/step_log_samples.h"
#include "calibrate/step_pricing.h"
#include "core/engine_args.h"
#include "core/flag_set.h"
#include "core/pending_file.h"
#include "loadgen/bench.h"
#include "loadgen/cli.h"
#include "loadgen/http_get.h"
#include "sim/cli/fidelity_recorded.h"
#include "sim/cli/replay_command.h"
#include "sim/replay/replay_report.h"
#include "sim/trace/trace_io.h"

namespace llm {
namespace {

constexpr const char* kFidelityUsage =
    R"(usage: llmsim fidelity TRACE --url http://HOST:PORT --profile FILE.json[,FILE.json...] [flags]
                       [engine args]

Replays TRACE against the real server (llmbench's client, arrival times honoured) --real-runs
times and in llmsim with the profile and the same engine arguments, and prints measured,
predicted and the signed error for TTFT, TPOT, ITL and E2E (p50, p90, p99) and throughput.
  --url http://HOST:PORT[/PATH]    the real server (llmserve or vLLM), started as the profile says
  --profile FILE.json[,...]        the profile (llmsim calibrate); several, comma-separated, are
                                   each compared with the same real runs, a table each
  --model NAME                     the model to ask the server for (default: the first served)
  --api-key KEY                    sent as "Authorization: Bearer KEY"
  --real-runs N                    runs against the server; the prediction is compared with their
                                   mean, next to their spread (2)
  --sim-runs K                     replays in llmsim, with seeds 0 to K-1 (the step-time scatter's
                                   draws differ): the prediction is their mean, printed next to
                                   their spread (5; a profile without a scatter replays alike)
  --no-api-server                  predict without the API server the profile measured
                                   (calibrate's api_server block): requests reach the engine on
                                   arrival
  --result-json FILE               the table as JSON (with several profiles, an array of them)
  --check-p50 PCT                  exit 1 when a p50 error exceeds PCT percent (for tests)
  --check-p50-as-run PCT           the same for the prediction with the step costs as run (needs
                                   --server-step-log): the machine's drift taken out, what is
                                   left is llmsim's own error (for tests on a noisy machine)
  --server-step-log FILE           the real server's step log (llmserve --step-log FILE, on this
                                   machine): its steps during the real runs are priced by each
                                   profile, and the trace is predicted again with the profile's
                                   step costs refitted to those steps (calibrate --step-log's fit),
                                   which tells the step costs' error (the fit's, or the machine's
                                   drift since calibrating) from the rest of llmsim's (scheduling,
                                   batching, queueing, host time)
Engine arguments (--max-num-seqs, --max-num-batched-tokens, ...) as for llmsim replay; give the
real server the same ones.
)";

struct FidelityOptions {
  std::string trace_path;
  std::string url;
  std::string served_model;
  std::string api_key;
  int32_t real_runs = 2;
  int32_t sim_runs = 5;
  bool api_server = true;
  std::string result_json;
  std::string server_step_log;
  double check_p50 = -1;
  double check_p50_as_run = -1;
  std::vector<EngineArgs> engines;  // one per file of the --profile list, each predicted alone
};

FidelityOptions parse_fidelity_args(const std::vector<std::string>& args) {
  FidelityOptions o;
  EngineFlagParser engine;
  FlagSet flags("llmsim fidelity");
  engine.add_to(flags);
  flags.nonempty({"--url"}, o.url, "URL")
      .text({"--api-key"}, o.api_key)
      .integer({"--real-runs"}, o.real_runs, 1, 50)
      .integer({"--sim-runs"}, o.sim_runs, 1, 100)
      .boolean({"--no-api-server"}, o.api_server, false)
      .nonempty({"--result-json"}, o.result_json)
      .nonempty({"--server-step-log"}, o.server_step_log)
      .number({"--check-p50"}, o.check_p50, 0)
      .number({"--check-p50-as-run"}, o.check_p50_as_run, 0)
      .positional([&o](const std::string& arg) {
        if (!o.trace_path.empty()) throw UsageError("unexpected argument '" + arg + "'");
        o.trace_path = arg;
      });
  flags.parse(args);
  EngineArgs common = engine.args();
  if (o.trace_path.empty()) throw UsageError("missing TRACE (a trace file or synthetic:...)");
  if (o.url.empty()) throw UsageError("--url: required (the real server)");
  if (common.profile.empty()) throw UsageError("--profile: required (llmsim calibrate)");
  if (o.check_p50_as_run >= 0 && o.server_step_log.empty()) {
    throw UsageError(
        "--check-p50-as-run: needs --server-step-log (the steps the costs are refitted to)");
  }
  if (common.gpu_or_model_given) {  // --model names the served model here
    o.served_model = common.model;
    common.gpu_or_model_given = false;
    common.model = EngineArgs{}.model;
  }
  for (const std::string& profile : parse_comma_list_flag("--profile", common.profile)) {
    o.engines.push_back(common);
    o.engines.back().profile = profile;
  }
  return o;
}

// A step model and scatter that replace the profile's (the costs as the real runs' steps took).
struct StepCosts {
  FittedStepModel model;
  std::optional<StepTimeNoise> noise;
};

// The trace's figures predicted by llmsim with `engine` (its profile among them), or with the
// profile's facts and `costs` instead of its step costs: one replay per seed 0 .. runs-1. A
// profile's step-time scatter makes one replay one draw of the engine's noise (TTFT p90 moved by
// a standard deviation of 6-10% between seeds on the chat trace of docs/fidelity.md), so the
// prediction is their mean.
std::vector<ReplaySummary> predict(const Trace& trace, const EngineArgs& engine, bool api_server,
                                   int32_t runs, const StepCosts* costs = nullptr) {
  ReplayOptions replay;
  replay.engine = engine;
  replay.api_server = api_server;
  ReplayConfig config = make_replay_config(replay);  // the profile read once
  if (costs) {
    config.deployment.fitted = costs->model;
    config.deployment.step_noise = costs->noise;
  }
  std::vector<ReplaySummary> replays;
  for (int32_t seed = 0; seed < runs; ++seed) {
    config.seed = static_cast<uint64_t>(seed);
    ReplayReport report(nullptr);
    std::vector<EngineObserver*> observers = {&report};
    ReplayHooks hooks;
    hooks.on_client_times = client_times_to(report, {});
    const ReplayTotals totals = run_replay(trace, config, observers, hooks);
    replays.push_back(
        report.finish(totals.end_time, totals.sum(), static_cast<int64_t>(trace.requests.size())));
  }
  return replays;
}

double mean_preemptions(const std::vector<ReplaySummary>& replays) {
  std::vector<double> preemptions;
  for (const ReplaySummary& r : replays) preemptions.push_back(static_cast<double>(r.preemptions));
  return mean_of_runs(preemptions);
}

// A client measured TTFT and E2E from the moment its request reached the server: with the API
// server modelled, the replay's client view of them.
const Distribution& client_view(const ReplaySummary& sim, Distribution ReplaySummary::*figure) {
  if (sim.client_e2e.count == 0) return sim.*figure;
  if (figure == &ReplaySummary::ttft) return sim.client_ttft;
  if (figure == &ReplaySummary::e2e) return sim.client_e2e;
  return sim.*figure;
}

std::vector<FidelityRow> table_of(const std::vector<loadgen::BenchReport>& real,
                                  const std::vector<ReplaySummary>& sims, double trace_start_s) {
  struct Figure {
    const char* name;
    loadgen::LatencyStats loadgen::BenchReport::*real;
    Distribution ReplaySummary::*sim;
  };
  const Figure figures[] = {{"TTFT", &loadgen::BenchReport::ttft, &ReplaySummary::ttft},
                            {"TPOT", &loadgen::BenchReport::tpot, &ReplaySummary::tpot},
                            {"ITL", &loadgen::BenchReport::itl, &ReplaySummary::itl},
                            {"E2E", &loadgen::BenchReport::e2e, &ReplaySummary::e2e}};
  std::vector<FidelityRow> rows;
  for (const Figure& f : figures) {
    for (int q = 0; q < 3; ++q) {
      FidelityRow row;
      row.figure = std::string(f.name) + (q == 0 ? " p50" : q == 1 ? " p90" : " p99") + " (ms)";
      row.goal = q == 2 ? 0.20 : 0.10;
      for (const loadgen::BenchReport& r : real) {
        const loadgen::LatencyStats& s = r.*(f.real);
        row.real.push_back(q == 0 ? s.median : q == 1 ? s.p90 : s.p99);
      }
      for (const ReplaySummary& sim : sims) {
        const Distribution& d = client_view(sim, f.sim);
        row.predicted_runs.push_back(1e3 * (q == 0 ? d.p50 : q == 1 ? d.p90 : d.p99));
      }
      row.predicted = mean_of_runs(row.predicted_runs);
      rows.push_back(row);
    }
  }
  FidelityRow tput;
  tput.figure = "output throughput (tok/s)";
  tput.goal = 0.20;
  for (const loadgen::BenchReport& r : real) tput.real.push_back(r.output_throughput);
  for (const ReplaySummary& sim : sims) {
    const double sim_duration = sim.duration_s - trace_start_s;
    tput.predicted_runs.push_back(
        sim_duration > 0 ? static_cast<double>(sim.completion_tokens) / sim_duration : 0);
  }
  tput.predicted = mean_of_runs(tput.predicted_runs);
  rows.push_back(tput);
  return rows;
}

// The server's /metrics text ("" when it has none).
std::string server_metrics(const loadgen::BenchConfig& target) {
  const loadgen::HttpGetResult r = loadgen::http_get(target, "/metrics");
  return r.status == 200 ? r.body : "";
}

double preemptions_in(const std::string& metrics) {
  return metric_total(metrics, "vllm:num_preemptions_total").value_or(0);
}

// The records `path` gained after its first `before` (the server's steps during the real runs).
std::vector<StepRecord> steps_logged_since(const std::string& path, size_t before) {
  std::vector<StepRecord> all = read_step_log(path);
  if (all.size() <= before) {
    throw std::runtime_error("--server-step-log " + path +
                             ": the server logged no steps during the real runs (was it started "
                             "with --step-log " +
                             path + "?)");
  }
  return {all.begin() + static_cast<std::ptrdiff_t>(before), all.end()};
}

// What every profile of the list is compared with: the real runs, and the server's steps during
// them (--server-step-log).
struct RealRuns {
  std::vector<loadgen::BenchReport> reports;
  double preemptions = 0;  // per run (vllm:num_preemptions_total)
  std::vector<StepRecord> steps;
};

// Replays the trace against the server --real-runs times. Returns 0, or 1 when requests failed
// (named on `err`).
int run_real(const FidelityOptions& o, const Trace& trace, const loadgen::BenchConfig& target,
             size_t logged_before, std::ostream& err, RealRuns& real) {
  std::string before = server_metrics(target);  // then each run's "after" is the next "before"
  for (int i = 0; i < o.real_runs; ++i) {
    err << "llmsim fidelity: real run " << i + 1 << " of " << o.real_runs << " ("
        << trace.requests.size() << " requests)\n";
    // Each run's prompts are new to the server: a run must not find the previous run's (or
    // an earlier command's) prompts in the prefix cache, which the prediction knows nothing of.
    loadgen::BenchConfig run_target = target;
    run_target.prompt_salt = fresh_prompt_salt(before, static_cast<uint64_t>(i));
    const loadgen::BenchRun run = loadgen::run_benchmark(trace, run_target);
    std::string after = server_metrics(target);
    real.preemptions += (preemptions_in(after) - preemptions_in(before)) / o.real_runs;
    before = std::move(after);
    if (run.report.failed > 0) {
      err << "llmsim fidelity: " << run.report.failed << " requests failed"
          << (run.report.errors.empty() ? "" : ": " + run.report.errors.front()) << "\n";
      return 1;
    }
    real.reports.push_back(run.report);
  }
  if (!o.server_step_log.empty()) real.steps = steps_logged_since(o.server_step_log, logged_before);
  return 0;
}

// The costs as run: the step model (and the scatter, where a profile keeps one) fitted to the
// real runs' own steps, as calibrate --step-log fits a log; the same for every profile of the
// list, so fitted once for each of "with scatter" and "without". On this VM the drift is not
// one factor: decode steps slowed by 15-29% while prefills held (docs/fidelity.md), and costs
// scaled by one factor put the prefills' slowdown into TTFT.
class StepRefits {
 public:
  explicit StepRefits(const std::vector<StepRecord>& steps)
      : samples_(step_log_samples(steps, -1, static_cast<Nanos>(kStepGapLimitMs * 1e6))) {}

  const StepLogFit& of(bool scatter) {
    std::optional<StepLogFit>& f = fits_[scatter ? 1 : 0];
    if (!f) {
      try {
        f = fit_step_log(samples_, scatter);
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error("--server-step-log: fitting the real runs' steps: " +
                                 std::string(e.what()));
      }
    }
    return *f;
  }

 private:
  std::vector<StepSample> samples_;
  std::optional<StepLogFit> fits_[2];  // [scatter kept]
};

// The profile's price of the steps the server ran, against their time from step start to step
// start (execute() and the host's short gap after it, as calibrate --step-log counts them: a
// simulated engine runs its steps back to back): how far the machine's speed has moved since the
// profile was measured; and the trace predicted again with the step costs as run.
FidelityAsRun predict_as_run(const Trace& trace, const EngineArgs& engine, bool api_server,
                             int32_t sim_runs, const RealRuns& real, double start_s,
                             StepRefits& refits) {
  const EngineProfile measured = load_engine_profile(engine.profile);
  const bool scatter = measured.step_noise.has_value() && !engine.no_step_noise;
  const StepPricing priced =
      price_steps(real.steps, measured.step, scatter ? &*measured.step_noise : nullptr);
  FidelityAsRun s;
  s.steps = real.steps.size();
  s.took_s = priced.all.measured_total_s + priced.short_gap_total_s;
  s.execute_s = priced.all.measured_total_s;
  s.host_gaps_s = priced.short_gap_total_s;
  s.gap_limit_ms = priced.gap_limit_ms;
  s.priced_s = priced.all.predicted_total_s;
  s.error = s.took_s > 0 ? s.priced_s / s.took_s - 1 : 0;
  const StepLogFit& refit = refits.of(scatter);
  const StepCosts as_ran{refit.fit.model, refit.noise};
  s.rows = table_of(real.reports, predict(trace, engine, api_server, sim_runs, &as_ran), start_s);
  s.fit = refit.fit.quality;
  s.scatter = refit.noise.has_value();
  return s;
}

// One profile of the list against the real runs.
FidelityResult compare_profile(const FidelityOptions& o, const Trace& trace, const RealRuns& real,
                               const EngineArgs& engine, StepRefits& refits) {
  const double start_s =
      trace.requests.empty() ? 0 : static_cast<double>(trace.requests.front().arrival_ns) / 1e9;
  const std::vector<ReplaySummary> predicted = predict(trace, engine, o.api_server, o.sim_runs);
  FidelityResult r;
  r.trace = trace.source;
  r.num_requests = trace.requests.size();
  r.profile = engine.profile;
  r.url = o.url;
  r.real_runs = o.real_runs;
  r.sim_runs = o.sim_runs;
  r.rows = table_of(real.reports, predicted, start_s);
  r.real_preemptions = real.preemptions;
  r.predicted_preemptions = mean_preemptions(predicted);
  if (!real.steps.empty()) {
    r.as_run = predict_as_run(trace, engine, o.api_server, o.sim_runs, real, start_s, refits);
  }
  return r;
}

// --check-p50 and --check-p50-as-run: names on `err` every p50 row whose error exceeds `bound`
// percent (none when negative); true when one does.
bool p50_exceeds(const std::string& profile, const std::vector<FidelityRow>& table, double bound,
                 const std::string& flag, std::ostream& err) {
  if (bound < 0) return false;
  bool exceeded = false;
  for (const FidelityRow& r : table) {
    if (r.figure.find("p50") != std::string::npos && std::abs(r.error()) * 100 > bound) {
      err << "llmsim fidelity: " << profile << ": " << r.figure << " error "
          << fidelity_pct(r.error(), true) << " exceeds " << flag << " " << bound << "%\n";
      exceeded = true;
    }
  }
  return exceeded;
}

}  // namespace

int run_fidelity_command(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err) {
  if (wants_recorded_fidelity(args)) return run_fidelity_recorded(args, out, err);
  if (wants_help(args)) {
    out << kFidelityUsage
        << "\nOffline, on runs recorded by others: llmsim fidelity --recorded "
           "PATH (llmsim fidelity --recorded x --help)\n";
    return 0;
  }
  FidelityOptions o;
  Trace trace;
  loadgen::BenchConfig target;
  size_t logged_before = 0;  // the server's step log's records before the real runs
  try {
    o = parse_fidelity_args(args);
    loadgen::parse_base_url(o.url, target);
    target.model = o.served_model;
    target.api_key = o.api_key;
    // A bad profile or flag is named before any traffic.
    for (const EngineArgs& engine : o.engines) resolve_engine_args(engine);
    trace = read_trace_file(o.trace_path);
    if (!o.server_step_log.empty()) {
      try {
        logged_before = count_step_records(o.server_step_log);
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--server-step-log: ") + e.what());
      }
    }
  } catch (const std::invalid_argument& e) {  // UsageError included
    return report_usage_error(err, "llmsim fidelity", e);
  } catch (const TraceError& e) {
    return report_usage_error(err, "llmsim fidelity", e);
  }
  try {
    RealRuns real;
    if (run_real(o, trace, target, logged_before, err, real) != 0) return 1;
    StepRefits refits(real.steps);
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    bool p50_exceeded = false;
    for (const EngineArgs& engine : o.engines) {
      const FidelityResult r = compare_profile(o, trace, real, engine, refits);
      out << format_fidelity(r);
      results.push_back(fidelity_json(r));
      p50_exceeded |= p50_exceeds(r.profile, r.rows, o.check_p50, "--check-p50", err);
      if (r.as_run) {
        p50_exceeded |= p50_exceeds(r.profile, r.as_run->rows, o.check_p50_as_run,
                                    "--check-p50-as-run (step costs as run)", err);
      }
    }
    if (!o.result_json.empty()) {
      PendingFile file("--result-json", o.result_json);
      const nlohmann::ordered_json& j = results.size() == 1 ? results[0] : results;
      file.stream() << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
                    << "\n";
      file.commit();
    }
    if (p50_exceeded) return 1;
    return 0;
  } catch (const std::exception& e) {
    err << "llmsim fidelity: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace llm
