#include "sim/cli/fidelity_recorded.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "core/flag_set.h"
#include "core/flag_values.h"
#include "core/pending_file.h"
#include "sim/replay/replay_options.h"
#include "sim/recorded/recorded_runs.h"
#include "core/sample_stats.h"

namespace llm {
namespace {

constexpr const char* kRecordedUsage =
    R"(usage: llmsim fidelity --recorded PATH [flags]

Replays real runs recorded by others and prints, per run, the measured figures, llmsim's
prediction and the signed error, then the median over runs. PATH is an inference-perf run folder
(profile.yaml, exp-config.yaml, results/), BLIS's trainval files (experiments.csv, measured.csv,
trainval-exact-config.json), a vLLM per-request log (vllm/requests.jsonl, vllm/meta.json,
trace.csv), a `vllm bench serve --save-result --save-detailed` JSON file, or a folder holding any
of them (../shared/gpu-truth). docs/fidelity.md says how each is rebuilt.
  --model-configs DIR      where <model>/config.json are (default: blis/model-configs or
                           model-configs beside the run or above it)
  --gpu NAME|FILE.json     the card for every run (default: the run's, as a preset)
  --model NAME|FILE        the model for every run (default: the run's config.json)
  --run NAME[,NAME...]     only the runs whose name contains one of these
  --no-api-server          requests reach the engine on arrival (no API-server time)
  --api-server-costs FILE  the API server's costs for every run instead of the card's preset
                           (a JSON object: request_ns, per_prompt_token_ns, hop_ns,
                           per_output_token_ns, response_ns; docs/api-server.md)
  --seed N                 arrivals of regenerated loads (42, inference-perf's)
  --result-json FILE       the tables as JSON
Engine arguments that replace every run's: --tensor-parallel-size, --max-num-seqs,
--max-num-batched-tokens, --max-model-len, --gpu-memory-utilization, --num-gpu-blocks-override.
)";

struct RecordedFidelityOptions {
  std::string path;
  RecordedOptions recorded;
  std::vector<std::string> only;
  bool api_server = true;
  std::optional<ApiServerCosts> api_costs;  // --api-server-costs
  std::string result_json;
  // Engine arguments given on the command line, over every run's.
  std::optional<int64_t> tp, max_num_seqs, max_num_batched_tokens, max_model_len, blocks;
  std::optional<double> gpu_memory_utilization;
};

RecordedFidelityOptions parse_recorded_args(const std::vector<std::string>& args) {
  RecordedFidelityOptions o;
  FlagSet flags("llmsim fidelity");
  auto count = [](std::optional<int64_t>& out, int64_t min) {
    return [&out, min](const std::string& f, const std::string& v) {
      out = parse_int_flag(f, v, min);
    };
  };
  flags.nonempty({"--recorded"}, o.path)
      .nonempty({"--model-configs"}, o.recorded.model_configs)
      .nonempty({"--gpu"}, o.recorded.gpu, "name")
      .nonempty({"--model"}, o.recorded.model, "name")
      .value({"--run"}, [&o](const std::string& f,
                             const std::string& v) { o.only = parse_comma_list_flag(f, v); })
      .boolean({"--no-api-server"}, o.api_server, false)
      .value({"--seed"}, [&o](const std::string& f,
                              const std::string& v) { o.recorded.seed = parse_uint_flag(f, v); })
      .nonempty({"--result-json"}, o.result_json)
      .value({"--api-server-costs"},
             [&o](const std::string& f, const std::string& v) {
               std::ifstream in(v);
               if (!in) throw UsageError(f + ": cannot open " + v);
               const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
               if (j.is_discarded()) throw UsageError(f + ": " + v + ": invalid JSON");
               o.api_costs = read_api_server_costs(j, v);
             })
      .value({"--tensor-parallel-size"}, count(o.tp, 1))
      .value({"--max-num-seqs"}, count(o.max_num_seqs, 1))
      .value({"--max-num-batched-tokens"}, count(o.max_num_batched_tokens, 1))
      .value({"--max-model-len"}, count(o.max_model_len, 2))
      .value({"--num-gpu-blocks-override"}, count(o.blocks, 2))
      .value({"--gpu-memory-utilization"}, [&o](const std::string& f, const std::string& v) {
        const double u = parse_double_flag(f, v, 0);
        if (u <= 0 || u > 1) throw UsageError(f + ": must be in (0, 1]");
        o.gpu_memory_utilization = u;
      });
  flags.parse(args);
  if (o.path.empty()) throw UsageError("--recorded: required");
  if (o.api_costs && !o.api_server) {
    throw UsageError("--api-server-costs: contradicts --no-api-server");
  }
  return o;
}

void apply_engine_overrides(const RecordedFidelityOptions& o, EngineArgs& e) {
  if (o.tp) e.tensor_parallel_size = *o.tp;
  if (o.max_num_seqs) e.max_num_seqs = static_cast<int32_t>(*o.max_num_seqs);
  if (o.max_num_batched_tokens) e.max_num_batched_tokens = o.max_num_batched_tokens;
  if (o.max_model_len) e.max_model_len = o.max_model_len;
  if (o.blocks) e.num_gpu_blocks_override = o.blocks;
  if (o.gpu_memory_utilization) e.gpu_memory_utilization = *o.gpu_memory_utilization;
}

bool run_selected(const RecordedFidelityOptions& o, const std::string& name) {
  if (o.only.empty()) return true;
  return std::any_of(o.only.begin(), o.only.end(),
                     [&name](const std::string& s) { return name.find(s) != std::string::npos; });
}

std::string signed_pct(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * fraction);
  return buf;
}

std::string recorded_figure_table(const std::vector<RecordedFigure>& figures) {
  std::string t;
  char line[160];
  std::snprintf(line, sizeof line, "  %-11s %12s %12s %9s\n", "figure", "measured", "predicted",
                "error");
  t += line;
  for (const RecordedFigure& f : figures) {
    std::snprintf(line, sizeof line, "  %-11s %12.2f %12.2f %9s\n", f.figure.c_str(), f.measured,
                  f.predicted, signed_pct(f.error()).c_str());
    t += line;
  }
  return t;
}

nlohmann::ordered_json recorded_figures_json(const std::vector<RecordedFigure>& figures) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const RecordedFigure& f : figures) {
    a.push_back({{"figure", f.figure},
                 {"measured_ms", f.measured},
                 {"predicted_ms", f.predicted},
                 {"error", f.error()}});
  }
  return a;
}

// The run's engine as a replay configuration, or none (told on err and kept in `refused`) when
// llmsim cannot configure it (a card or model it does not know, a context that does not fit).
std::optional<ReplayConfig> configure_recorded_run(const RecordedFidelityOptions& o,
                                                   RecordedRun& run, std::ostream& err,
                                                   nlohmann::ordered_json& refused) {
  apply_engine_overrides(o, run.engine);
  ReplayOptions replay;
  replay.engine = run.engine;
  replay.api_server = o.api_server;
  try {
    ReplayConfig config = make_replay_config(replay);
    if (o.api_costs) config.api_server = o.api_costs;
    return config;
  } catch (const std::invalid_argument& e) {
    err << "llmsim fidelity: " << run.name << ": not predicted: " << e.what() << "\n";
    refused.push_back({{"run", run.name}, {"reason", e.what()}});
    return std::nullopt;
  }
}

std::string recorded_run_heading(const RecordedRun& run, const RecordedPrediction& p) {
  std::string h = "run " + run.name + " (" + run.kind + ": " + run.model + " on " + run.gpu +
                  " as --gpu " + run.engine.gpu + ", TP " +
                  std::to_string(run.engine.tensor_parallel_size) + "; " +
                  std::to_string(run.trace.requests.size()) + " requests, " +
                  std::to_string(p.completed) + " completed";
  if (p.aborted) h += ", " + std::to_string(p.aborted) + " aborted at the client's timeout";
  h += std::string("; measured at the ") + measured_view_name(run.view) +
       (p.api_server ? ", API server modelled" : ", no API server") + ")\n";
  return h;
}

nlohmann::ordered_json recorded_run_json(const RecordedRun& run, const RecordedPrediction& p,
                                         const std::vector<RecordedFigure>& figures) {
  nlohmann::ordered_json j;
  j["run"] = run.name;
  j["kind"] = run.kind;
  j["source"] = run.source;
  j["model"] = run.model;
  j["card"] = run.gpu;
  j["gpu"] = run.engine.gpu;
  j["model_config"] = run.engine.model;
  j["tensor_parallel_size"] = run.engine.tensor_parallel_size;
  j["view"] = measured_view_name(run.view);
  j["api_server"] = p.api_server;
  j["requests"] = run.trace.requests.size();
  j["completed"] = p.completed;
  j["aborted"] = p.aborted;
  j["failed_recorded"] = run.failed;
  j["preemptions"] = p.preemptions;
  j["notes"] = run.notes;
  j["figures"] = recorded_figures_json(figures);
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (size_t i = 0; i < run.stages.size() && i < p.stages.size(); ++i) {
    stages.push_back(
        {{"stage", run.stages[i].name},
         {"requests", run.stages[i].end - run.stages[i].first},
         {"figures", recorded_figures_json(compare_figures(run.stages[i].measured, p.stages[i]))}});
  }
  j["stages"] = stages;
  return j;
}

// Prints the medians over runs and returns them as JSON.
nlohmann::ordered_json print_recorded_medians(const std::vector<FigureMedian>& medians,
                                              std::ostream& out) {
  int64_t runs = 0;
  for (const FigureMedian& m : medians) runs = std::max(runs, m.runs);
  out << "median over " << runs << " runs (|error|, signed):\n";
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const FigureMedian& m : medians) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-11s %3lld runs  %7.1f%%  %8s\n", m.figure.c_str(),
                  static_cast<long long>(m.runs), 100 * m.median_abs_error,
                  signed_pct(m.median_error).c_str());
    out << line;
    j.push_back({{"figure", m.figure},
                 {"runs", m.runs},
                 {"median_abs_error", m.median_abs_error},
                 {"median_error", m.median_error}});
  }
  return j;
}

}  // namespace

bool wants_recorded_fidelity(const std::vector<std::string>& args) {
  return std::any_of(args.begin(), args.end(), [](const std::string& a) {
    return a == "--recorded" || a.rfind("--recorded=", 0) == 0;
  });
}

std::vector<RecordedFigure> compare_figures(const RunFigures& measured,
                                            const RunFigures& predicted) {
  std::vector<RecordedFigure> out;
  for (const std::string& name : run_figure_names()) {
    const std::optional<double> m = run_figure(measured, name), p = run_figure(predicted, name);
    if (m && p && *m > 0) out.push_back({name, *m, *p});
  }
  return out;
}

std::vector<FigureMedian> median_errors(const std::vector<std::vector<RecordedFigure>>& runs) {
  std::vector<FigureMedian> out;
  for (const std::string& name : run_figure_names()) {
    std::vector<double> abs_errors, errors;
    for (const auto& run : runs) {
      for (const RecordedFigure& f : run) {
        if (f.figure != name) continue;
        errors.push_back(f.error());
        abs_errors.push_back(std::abs(f.error()));
      }
    }
    if (errors.empty()) continue;
    out.push_back({name, static_cast<int64_t>(errors.size()), quantile(abs_errors, 0.5),
                   quantile(errors, 0.5)});
  }
  return out;
}

int run_fidelity_recorded(const std::vector<std::string>& args, std::ostream& out,
                          std::ostream& err) {
  if (wants_help(args)) {
    out << kRecordedUsage;
    return 0;
  }
  RecordedFidelityOptions o;
  std::vector<RecordedRun> runs;
  try {
    o = parse_recorded_args(args);
    for (RecordedRun& run : read_recorded_runs(o.path, o.recorded)) {
      if (run_selected(o, run.name)) runs.push_back(std::move(run));
    }
    if (runs.empty()) throw UsageError("--run: no run of " + o.path + " matches");
  } catch (const std::invalid_argument& e) {  // UsageError included
    return report_usage_error(err, "llmsim fidelity", e);
  } catch (const TraceError& e) {
    return report_usage_error(err, "llmsim fidelity", e);
  }
  try {
    std::vector<std::vector<RecordedFigure>> compared;
    nlohmann::ordered_json results = nlohmann::ordered_json::array();
    nlohmann::ordered_json refused = nlohmann::ordered_json::array();
    for (RecordedRun& run : runs) {
      std::optional<ReplayConfig> config = configure_recorded_run(o, run, err, refused);
      if (!config) continue;
      const RecordedPrediction p = predict_recorded_run(run, *config);
      const std::vector<RecordedFigure> figures = compare_figures(run.measured, p.whole);
      compared.push_back(figures);
      out << recorded_run_heading(run, p) << recorded_figure_table(figures);
      results.push_back(recorded_run_json(run, p, figures));
    }
    const nlohmann::ordered_json medians = print_recorded_medians(median_errors(compared), out);
    if (!o.result_json.empty()) {
      nlohmann::ordered_json j;
      j["recorded"] = o.path;
      j["api_server"] = o.api_server;
      j["runs"] = results;
      j["medians"] = medians;
      j["not_predicted"] = refused;
      PendingFile file("--result-json", o.result_json);
      file.stream() << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
                    << "\n";
      file.commit();
    }
    return refused.empty() ? 0 : 2;
  } catch (const std::exception& e) {
    err << "llmsim fidelity: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace llm
