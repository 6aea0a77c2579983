#include "sim/recorded/blis_trainval_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include "sim/recorded/recorded_engine.h"
#include "sim/recorded/recorded_files.h"
#include "sim/recorded/shared_prefix_load.h"

namespace llm {
namespace fs = std::filesystem;
namespace {

// measured.csv's metric names and the figures they are.
const std::map<std::string, std::string>& measured_csv_figures() {
  static const std::map<std::string, std::string> m = {
      {"ttft_mean", "ttft_mean"}, {"ttft_p90", "ttft_p90"}, {"ttft_p99", "ttft_p99"},
      {"e2e_mean", "e2e_mean"},   {"e2e_p90", "e2e_p90"},   {"e2e_p99", "e2e_p99"},
      {"itl_mean", "itl_mean"},
  };
  return m;
}

// measured.csv: folder -> stage (-1: whole run) -> figures.
std::map<std::string, std::map<int64_t, RunFigures>> read_measured_csv(const std::string& path) {
  std::map<std::string, std::map<int64_t, RunFigures>> out;
  for (const CsvRow& row : read_csv_rows(path)) {
    const std::string at = path + ":" + std::to_string(row.line);
    const std::string& folder = csv_field(path, row, "folder");
    const std::string& stage_text = csv_field(path, row, "stage_index(-1=whole run)");
    const int64_t stage =
        stage_text == "-1" ? -1 : parse_count_field(at, "stage_index", stage_text);
    const std::string& metric = csv_field(path, row, "metric(ms)");
    auto figure = measured_csv_figures().find(metric);
    if (figure == measured_csv_figures().end()) {
      throw TraceError(at + ": metric(ms): unknown metric '" + metric + "'");
    }
    const double ms = parse_number_field(at, "actual_ms", csv_field(path, row, "actual_ms"));
    if (ms <= 0) throw TraceError(at + ": actual_ms: must be > 0");
    run_figure(out[folder][stage], figure->second) = ms;
  }
  return out;
}

}  // namespace

bool is_blis_trainval(const std::string& dir) {
  std::error_code ec;
  const fs::path d(dir);
  return fs::is_regular_file(d / "experiments.csv", ec) &&
         fs::is_regular_file(d / "measured.csv", ec) &&
         fs::is_regular_file(d / "trainval-exact-config.json", ec);
}

std::vector<RecordedRun> read_blis_trainval(const std::string& dir,
                                            const RecordedOptions& options) {
  const fs::path d(dir);
  const std::string experiments = (d / "experiments.csv").string();
  const std::string config_path = (d / "trainval-exact-config.json").string();
  const auto measured = read_measured_csv((d / "measured.csv").string());
  const nlohmann::json config = read_json_file(config_path);
  if (!config.contains("experiments") || !config.at("experiments").is_array()) {
    throw TraceError(config_path + ": experiments: expected an array");
  }
  std::map<std::string, const nlohmann::json*> by_id;
  for (const nlohmann::json& e : config.at("experiments")) {
    if (!e.is_object() || !e.contains("id") || !e.at("id").is_string()) {
      throw TraceError(config_path + ": experiments[]: id: expected a string");
    }
    by_id[e.at("id").get<std::string>()] = &e;
  }
  std::vector<RecordedRun> runs;
  for (const CsvRow& row : read_csv_rows(experiments)) {
    const std::string at = experiments + ":" + std::to_string(row.line);
    RecordedRun run;
    run.kind = "blis-trainval";
    run.name = csv_field(experiments, row, "folder");
    run.source = at;
    run.view = MeasuredView::kClient;
    const std::string& id = csv_field(experiments, row, "exp_id");
    auto e = by_id.find(id);
    if (e == by_id.end()) {
      // exp_id 20260217 for folder 20260217-155451-...: the config's id is the folder's prefix.
      e = std::find_if(by_id.begin(), by_id.end(), [&run](const auto& entry) {
        return run.name.rfind(entry.first + "-", 0) == 0;
      });
    }
    if (e == by_id.end()) {
      throw TraceError(at + ": exp_id: '" + id + "' is not among " + config_path +
                       "'s experiments");
    }
    const nlohmann::json& x = *e->second;
    const std::string label = config_path + ": experiments[id=" + id + "]";
    RecordedServer s;
    s.label = label;
    s.model = csv_field(experiments, row, "model");
    s.card = csv_field(experiments, row, "hardware");
    s.tensor_parallel_size = parse_count_field(at, "tp", csv_field(experiments, row, "tp"));
    s.max_num_batched_tokens = parse_count_field(
        at, "max_num_batched_tokens", csv_field(experiments, row, "max_num_batched_tokens"));
    s.max_num_seqs = static_cast<int64_t>(json_number_at(x, "max_num_seqs", label));
    s.num_gpu_blocks = static_cast<int64_t>(json_number_at(x, "total_kv_blocks", label));
    if (s.tensor_parallel_size < 1) throw TraceError(at + ": tp: must be >= 1");
    run.model = s.model;
    run.gpu = s.card;
    run.engine = recorded_engine_args(s, dir, options, run.notes);
    run.notes.push_back("KV blocks: total_kv_blocks as vLLM logged it");

    if (!x.contains("workload") || !x.at("workload").contains("inference_perf")) {
      throw TraceError(label + ": workload.inference_perf: missing");
    }
    const nlohmann::json& ip = x.at("workload").at("inference_perf");
    const std::string wl = label + ": workload.inference_perf";
    if (!ip.contains("shared_prefix")) throw TraceError(wl + ": shared_prefix: missing");
    if (!ip.contains("stages")) throw TraceError(wl + ": stages: missing");
    const SharedPrefixData shared =
        parse_shared_prefix(ip.at("shared_prefix"), wl + ".shared_prefix");
    const std::vector<ConstantStage> stages =
        parse_constant_stages(ip.at("stages"), wl + ".stages");

    auto m = measured.find(run.name);
    if (m == measured.end()) {
      throw TraceError(at + ": folder: '" + run.name + "' has no rows in measured.csv");
    }
    std::vector<double> drain_s;
    for (size_t i = 0; i < stages.size(); ++i) {
      auto st = m->second.find(static_cast<int64_t>(i));
      drain_s.push_back(st != m->second.end() && st->second.e2e_p99 ? *st->second.e2e_p99 / 1e3
                                                                    : 0);
    }
    std::vector<std::pair<size_t, size_t>> ranges;
    run.trace = shared_prefix_trace(shared, stages, drain_s, options.seed, &ranges);
    run.trace.source = label;
    for (size_t i = 0; i < stages.size(); ++i) {
      RecordedStage stage{"stage " + std::to_string(i), ranges[i].first, ranges[i].second, {}};
      auto st = m->second.find(static_cast<int64_t>(i));
      if (st != m->second.end()) stage.measured = st->second;
      run.stages.push_back(stage);
    }
    auto whole = m->second.find(-1);
    if (whole == m->second.end()) {
      throw TraceError(at + ": folder: '" + run.name +
                       "' has no whole-run (-1) rows in measured.csv");
    }
    run.measured = whole->second;
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace llm
