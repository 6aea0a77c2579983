#include "sim/cli/fidelity_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <utility>

#include "backends/sim/engine_args.h"
#include "backends/sim/engine_profile.h"
#include "backends/sim/step_model.h"
#include "backends/sim/step_record.h"
#include "calibrate/prometheus_text.h"
#include "core/flag_set.h"
#include "loadgen/bench.h"
#include "loadgen/cli.h"
#include "loadgen/http_get.h"
#include "sim/cli/pending_file.h"
#include "sim/cli/replay_command.h"
#include "sim/replay_report.h"
#include "sim/sample_stats.h"
#include "sim/step_pricing.h"
#include "sim/trace_io.h"

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
  --result-json FILE               the table as JSON (with several profiles, an array of them)
  --check-p50 PCT                  exit 1 when a p50 error exceeds PCT percent (for tests)
  --check-p50-as-run PCT           the same for the prediction with the step costs as run (needs
                                   --server-step-log): the machine's drift taken out, what is
                                   left is llmsim's own error (for tests on a noisy machine)
  --server-step-log FILE           the real server's step log (llmserve --step-log FILE, on this
                                   machine): its steps during the real runs are priced by each
                                   profile, and the trace is predicted again with the profile's
                                   costs scaled to what those steps measured, which tells the step
                                   model's error (or the machine's drift since calibrating) from
                                   the rest of llmsim's (scheduling, batching, queueing, host time)
Engine arguments (--max-num-seqs, --max-num-batched-tokens, ...) as for llmsim replay; give the
real server the same ones.
)";

struct FidelityOptions {
  std::string trace_path;
  std::string url;
  std::string served_model;
  std::string api_key;
  int32_t real_runs = 2;
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
        "--check-p50-as-run: needs --server-step-log (the steps the costs are scaled to)");
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

// The trace's figures predicted by llmsim with `engine` (its profile among them), the profile's
// step costs multiplied by step_scale.
ReplaySummary predict(const Trace& trace, const EngineArgs& engine, double step_scale = 1.0) {
  ReplayOptions replay;
  replay.engine = engine;
  ReplayConfig config = make_replay_config(replay);
  if (config.deployment.fitted && step_scale != 1.0) {
    config.deployment.fitted = scaled_step_model(*config.deployment.fitted, step_scale);
  }
  ReplayReport report(nullptr);
  std::vector<EngineObserver*> observers = {&report};
  const ReplayTotals totals = run_replay(trace, config, observers, {});
  return report.finish(totals.end_time, totals.sum(), static_cast<int64_t>(trace.requests.size()));
}

std::vector<FidelityRow> table_of(const std::vector<loadgen::BenchReport>& real,
                                  const ReplaySummary& sim, double trace_start_s) {
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
      const Distribution& d = sim.*(f.sim);
      row.predicted = 1e3 * (q == 0 ? d.p50 : q == 1 ? d.p90 : d.p99);
      rows.push_back(row);
    }
  }
  FidelityRow tput;
  tput.figure = "output throughput (tok/s)";
  tput.goal = 0.20;
  for (const loadgen::BenchReport& r : real) tput.real.push_back(r.output_throughput);
  const double sim_duration = sim.duration_s - trace_start_s;
  tput.predicted = sim_duration > 0 ? static_cast<double>(sim.completion_tokens) / sim_duration : 0;
  rows.push_back(tput);
  return rows;
}

std::string pct(double fraction, bool sign) {
  char buf[32];
  std::snprintf(buf, sizeof buf, sign ? "%+.1f%%" : "%.1f%%", 100 * fraction);
  return buf;
}

nlohmann::ordered_json table_json(const std::vector<FidelityRow>& rows) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const FidelityRow& r : rows) {
    j.push_back({{"figure", r.figure},
                 {"real", r.real},
                 {"real_mean", r.real_mean()},
                 {"spread", r.spread()},
                 {"predicted", r.predicted},
                 {"error", r.error()},
                 {"goal", r.goal},
                 {"verdict", r.verdict()}});
  }
  return j;
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

// "TTFT p50 -3.1%, TPOT p50 ..." for the p50 and p90 rows.
std::string p50_p90_errors(const std::vector<FidelityRow>& rows) {
  std::string out;
  for (const FidelityRow& r : rows) {
    if (r.figure.find(" p50") == std::string::npos && r.figure.find(" p90") == std::string::npos) {
      continue;
    }
    out += (out.empty() ? "" : ", ") + r.figure.substr(0, r.figure.find(" (")) + " " +
           pct(r.error(), true);
  }
  return out;
}

}  // namespace

double FidelityRow::real_mean() const {
  double sum = 0;
  for (double v : real) sum += v;
  return real.empty() ? 0 : sum / static_cast<double>(real.size());
}

double FidelityRow::spread() const {
  if (real.size() < 2 || real_mean() <= 0) return 0;
  const auto [lo, hi] = std::minmax_element(real.begin(), real.end());
  return (*hi - *lo) / real_mean();
}

double FidelityRow::error() const {
  const double mean = real_mean();
  return mean > 0 ? (predicted - mean) / mean : (predicted == 0 ? 0 : INFINITY);
}

std::string FidelityRow::verdict() const {
  const double e = std::abs(error());
  if (e <= spread()) return "inside spread";
  return e <= goal ? "pass" : "MISS";
}

double median_abs_error(const std::vector<FidelityRow>& rows) {
  std::vector<double> e;
  for (const FidelityRow& r : rows) e.push_back(std::abs(r.error()));
  return quantile(std::move(e), 0.5);
}

std::string format_fidelity_table(const std::vector<FidelityRow>& rows) {
  std::string out;
  char line[200];
  std::snprintf(line, sizeof line, "%-26s %12s %8s %12s %8s  %s\n", "figure", "real (mean)",
                "spread", "predicted", "error", "verdict (goal)");
  out += line;
  for (const FidelityRow& r : rows) {
    std::snprintf(line, sizeof line, "%-26s %12.2f %8s %12.2f %8s  %s (%s)\n", r.figure.c_str(),
                  r.real_mean(), pct(r.spread(), false).c_str(), r.predicted,
                  pct(r.error(), true).c_str(), r.verdict().c_str(), pct(r.goal, false).c_str());
    out += line;
  }
  out +=
      "median |error| over the table: " + pct(median_abs_error(rows), false) + " (goal <= 5.0%)\n";
  return out;
}

int run_fidelity_command(const std::vector<std::string>& args, std::ostream& out,
                         std::ostream& err) {
  if (wants_help(args)) {
    out << kFidelityUsage;
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
    std::vector<loadgen::BenchReport> real;
    double real_preemptions = 0;
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
      real_preemptions += (preemptions_in(after) - preemptions_in(before)) / o.real_runs;
      before = std::move(after);
      if (run.report.failed > 0) {
        err << "llmsim fidelity: " << run.report.failed << " requests failed"
            << (run.report.errors.empty() ? "" : ": " + run.report.errors.front()) << "\n";
        return 1;
      }
      real.push_back(run.report);
    }
    const std::vector<StepRecord> run_steps =
        o.server_step_log.empty() ? std::vector<StepRecord>{}
                                  : steps_logged_since(o.server_step_log, logged_before);
    const double start_s =
        trace.requests.empty() ? 0 : static_cast<double>(trace.requests.front().arrival_ns) / 1e9;
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    bool p50_exceeded = false;
    for (const EngineArgs& engine : o.engines) {
      const std::string& profile = engine.profile;
      const ReplaySummary predicted = predict(trace, engine);
      const std::vector<FidelityRow> rows = table_of(real, predicted, start_s);
      out << "fidelity of " << profile << " against " << o.url << " on " << trace.source << " ("
          << trace.requests.size() << " requests, " << o.real_runs << " real runs)\n"
          << format_fidelity_table(rows) << "preemptions: real " << real_preemptions
          << " per run (vllm:num_preemptions_total), predicted " << predicted.preemptions << "\n";
      nlohmann::ordered_json j;
      j["trace"] = trace.source;
      j["profile"] = profile;
      j["url"] = o.url;
      j["real_runs"] = o.real_runs;
      j["median_abs_error"] = median_abs_error(rows);
      j["real_preemptions_per_run"] = real_preemptions;
      j["predicted_preemptions"] = predicted.preemptions;
      j["rows"] = table_json(rows);
      std::vector<FidelityRow> as_run;  // with the step costs scaled to the server's steps
      if (!run_steps.empty()) {
        // The profile's price of the steps the server ran, against their time from step start
        // to step start (execute() and the host's short gap after it, as calibrate --step-log
        // counts them: a simulated engine runs its steps back to back), and the prediction with
        // the profile's costs scaled so that those steps cost what they took.
        const EngineProfile measured = load_engine_profile(profile);
        const StepTimeNoise* noise =
            measured.step_noise && !engine.no_step_noise ? &*measured.step_noise : nullptr;
        const StepPricing priced = price_steps(run_steps, measured.step, noise);
        const double took = priced.all.measured_total_s + priced.short_gap_total_s,
                     modelled = priced.all.predicted_total_s;
        const double scale = modelled > 0 ? took / modelled : 1.0;
        const double error = took > 0 ? modelled / took - 1 : 0;
        as_run = table_of(real, predict(trace, engine, scale), start_s);
        out << "the server's " << run_steps.size() << " steps during the real runs took " << took
            << " s (" << priced.all.measured_total_s << " s in execute(), "
            << priced.short_gap_total_s << " s of host time in gaps under " << priced.gap_limit_ms
            << " ms); the profile prices them at " << modelled << " s (" << pct(error, true)
            << ")\n"
            << "with its step costs scaled by " << scale
            << " to those: median |error| over the table " << pct(median_abs_error(as_run), false)
            << " (" << p50_p90_errors(as_run) << ")\n";
        j["server_steps"] = {{"steps", run_steps.size()},
                             {"took_s", took},
                             {"execute_s", priced.all.measured_total_s},
                             {"host_gaps_s", priced.short_gap_total_s},
                             {"priced_s", modelled},
                             {"error", error}};
        j["step_costs_as_run"] = {{"scale", scale},
                                  {"median_abs_error", median_abs_error(as_run)},
                                  {"rows", table_json(as_run)}};
      }
      results.push_back(std::move(j));
      const auto check = [&](const std::vector<FidelityRow>& table, double bound,
                             const std::string& flag) {
        if (bound < 0) return;
        for (const FidelityRow& r : table) {
          if (r.figure.find("p50") != std::string::npos && std::abs(r.error()) * 100 > bound) {
            err << "llmsim fidelity: " << profile << ": " << r.figure << " error "
                << pct(r.error(), true) << " exceeds " << flag << " " << bound << "%\n";
            p50_exceeded = true;
          }
        }
      };
      check(rows, o.check_p50, "--check-p50");
      check(as_run, o.check_p50_as_run, "--check-p50-as-run (step costs as run)");
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
