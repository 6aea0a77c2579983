#include "sim/recorded/inference_perf_reader.h"

#include <cmath>
#include <filesystem>

#include "sim/recorded/recorded_engine.h"
#include "sim/recorded/recorded_files.h"
#include "sim/recorded/shared_prefix_load.h"

namespace llm {
namespace fs = std::filesystem;
namespace {

const nlohmann::json& json_member(const nlohmann::json& o, const std::string& key,
                                  const std::string& label) {
  if (!o.is_object() || !o.contains(key)) throw TraceError(label + ": " + key + ": missing");
  return o.at(key);
}

// mean, median, p90, p99 of a latency object (seconds), in milliseconds.
void lifecycle_latency_figures(const nlohmann::json& o, const std::string& label,
                               std::optional<double>* mean, std::optional<double>* p50,
                               std::optional<double>* p90, std::optional<double>* p99) {
  if (mean) *mean = 1e3 * json_number_at(o, "mean", label);
  if (p50) *p50 = 1e3 * json_number_at(o, "median", label);
  if (p90) *p90 = 1e3 * json_number_at(o, "p90", label);
  if (p99) *p99 = 1e3 * json_number_at(o, "p99", label);
}

}  // namespace

bool is_inference_perf_run(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "profile.yaml", ec) &&
         fs::is_regular_file(fs::path(dir) / "exp-config.yaml", ec);
}

LifecycleFigures read_lifecycle_metrics(const std::string& path) {
  const nlohmann::json j = read_json_file(path);
  LifecycleFigures out;
  const nlohmann::json& ok = json_member(j, "successes", path);
  out.successes = static_cast<int64_t>(json_number_at(ok, "count", path + ": successes"));
  if (out.successes > 0) {
    const std::string at = path + ": successes.latency";
    const nlohmann::json& lat = json_member(ok, "latency", path + ": successes");
    RunFigures& f = out.figures;
    lifecycle_latency_figures(json_member(lat, "time_to_first_token", at),
                              at + ".time_to_first_token", &f.ttft_mean, &f.ttft_p50, &f.ttft_p90,
                              &f.ttft_p99);
    const nlohmann::json& e2e = json_member(lat, "request_latency", at);
    lifecycle_latency_figures(e2e, at + ".request_latency", &f.e2e_mean, &f.e2e_p50, &f.e2e_p90,
                              &f.e2e_p99);
    out.e2e_max_s = json_number_at(e2e, "max", at + ".request_latency");
    lifecycle_latency_figures(json_member(lat, "time_per_output_token", at),
                              at + ".time_per_output_token", &f.tpot_mean, &f.tpot_p50, &f.tpot_p90,
                              nullptr);
    lifecycle_latency_figures(json_member(lat, "inter_token_latency", at),
                              at + ".inter_token_latency", &f.itl_mean, nullptr, nullptr, nullptr);
  }
  if (j.contains("failures")) {
    const nlohmann::json& bad = j.at("failures");
    out.failures = static_cast<int64_t>(json_number_at(bad, "count", path + ": failures"));
    if (out.failures > 0) {
      out.failure_latency_min_s =
          json_number_at(json_member(bad, "request_latency", path + ": failures"), "min",
                         path + ": failures.request_latency");
    }
  }
  return out;
}

RecordedRun read_inference_perf_run(const std::string& dir, const RecordedOptions& options) {
  const fs::path root(dir);
  const std::string profile_path = (root / "profile.yaml").string();
  const std::string server_path = (root / "exp-config.yaml").string();
  RecordedRun run;
  run.name = root.filename().string();
  if (run.name.empty()) run.name = root.parent_path().filename().string();
  run.kind = "inference-perf";
  run.source = dir;
  run.view = MeasuredView::kClient;

  // The client's load.
  const nlohmann::json profile = read_json_file(profile_path);
  const nlohmann::json& data = json_member(profile, "data", profile_path);
  const nlohmann::json& load = json_member(profile, "load", profile_path);
  const std::string data_type = json_member(data, "type", profile_path + ": data").dump();
  if (data_type != "\"shared_prefix\"") {
    throw TraceError(profile_path + ": data.type: only shared_prefix is rebuilt, got " + data_type);
  }
  if (json_member(load, "type", profile_path + ": load").dump() != "\"constant\"") {
    throw TraceError(profile_path + ": load.type: only constant is rebuilt, got " +
                     load.at("type").dump());
  }
  const SharedPrefixData shared =
      parse_shared_prefix(json_member(data, "shared_prefix", profile_path + ": data"),
                          profile_path + ": data.shared_prefix");
  const std::vector<ConstantStage> stages = parse_constant_stages(
      json_member(load, "stages", profile_path + ": load"), profile_path + ": load.stages");

  // The server.
  const auto server = read_flat_yaml(server_path);
  RecordedServer s;
  s.label = server_path;
  s.card = "H100";  // not in the files: gpu-truth/README.md says these ran on H100 SXM
  run.notes.push_back("card not recorded: H100 SXM, as ../shared/gpu-truth/README.md says");
  for (const auto& [key, value] : server) {
    if (key == "model") {
      s.model = value;
    } else if (key == "tensor_parallelism") {
      s.tensor_parallel_size = parse_count_field(server_path, key, value);
    } else if (key == "max_model_len") {
      s.max_model_len = parse_count_field(server_path, key, value);
    } else if (key == "max_num_batched_tokens") {
      s.max_num_batched_tokens = parse_count_field(server_path, key, value);
    } else if (key == "max_num_seqs") {
      s.max_num_seqs = parse_count_field(server_path, key, value);
    } else if (key == "gpu_memory_utilization") {
      s.gpu_memory_utilization = parse_number_field(server_path, key, value);
    } else if (key != "app") {
      throw TraceError(server_path + ": " + key + ": not a field this reader knows");
    }
  }
  if (s.model.empty()) throw TraceError(server_path + ": model: missing");
  run.model = s.model;
  run.gpu = s.card;
  run.engine = recorded_engine_args(s, dir, options, run.notes);

  // What was measured, per stage and for the whole run.
  std::vector<LifecycleFigures> measured;
  std::vector<double> drain_s;
  for (size_t i = 0; i < stages.size(); ++i) {
    const fs::path p =
        root / "results" / ("stage_" + std::to_string(i) + "_lifecycle_metrics.json");
    measured.push_back(read_lifecycle_metrics(p.string()));
    drain_s.push_back(measured.back().e2e_max_s);
  }
  std::vector<std::pair<size_t, size_t>> ranges;
  run.trace = shared_prefix_trace(shared, stages, drain_s, options.seed, &ranges);
  run.trace.source = profile_path;
  for (size_t i = 0; i < stages.size(); ++i) {
    run.stages.push_back(
        {"stage " + std::to_string(i), ranges[i].first, ranges[i].second, measured[i].figures});
    run.failed += measured[i].failures;
    if (measured[i].failures > 0) {
      const auto timeout = static_cast<int64_t>(std::floor(measured[i].failure_latency_min_s));
      if (timeout > 0 &&
          (!run.client_timeout_ns || timeout * 1'000'000'000 < *run.client_timeout_ns)) {
        run.client_timeout_ns = timeout * 1'000'000'000;
      }
    }
  }
  const fs::path summary = root / "results" / "summary_lifecycle_metrics.json";
  std::error_code ec;
  if (fs::is_regular_file(summary, ec)) {
    run.measured = read_lifecycle_metrics(summary.string()).figures;
  } else if (stages.size() == 1) {
    run.measured = measured[0].figures;
  }
  if (run.failed > 0) {
    run.notes.push_back(std::to_string(run.failed) +
                        " requests failed at the client (timeouts); the figures are of the rest");
  }
  return run;
}

}  // namespace llm
