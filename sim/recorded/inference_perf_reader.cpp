#include "sim/recorded/inference_perf_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>

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

// inference-perf's time_per_output_token and inter_token_latency time every line its client
// reads from the stream, and an SSE event is two lines (the data and the blank line after it):
// a request of n tokens (n + 1 events with [DONE]) spans 2n + 1 gaps where llmsim counts n - 1.
// In the runs, the measured mean times 2n + 1 is the E2E mean less the TTFT mean within 0.2%.
double per_token_of_per_line(int64_t output_len) {
  return output_len > 1
             ? static_cast<double>(2 * output_len + 1) / static_cast<double>(output_len - 1)
             : 1.0;
}

std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") + 1 - a);
}

// The shared_prefix block of results/config.yaml, the configuration inference-perf ran with, as
// profile.yaml's field names; nullopt when the file or the block is absent.
std::optional<nlohmann::json> resolved_shared_prefix(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file);
  if (!in) throw TraceError(file.string() + ": cannot open file");
  nlohmann::json out = nlohmann::json::object();
  bool in_data = false, in_block = false;
  size_t block_indent = 0;
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    const std::string text = trimmed(line.substr(0, line.find('#')));
    if (text.empty()) continue;
    const size_t indent = line.find_first_not_of(' ');
    if (indent == 0) {
      in_data = text == "data:";
      in_block = false;
      continue;
    }
    if (in_data && !in_block) {
      if (text == "shared_prefix:") {
        in_block = true;
        block_indent = indent;
      }
      continue;
    }
    if (!in_block) continue;
    if (indent <= block_indent) {
      in_block = false;
      continue;
    }
    const size_t colon = text.find(':');
    if (colon == std::string::npos) continue;
    std::string key = trimmed(text.substr(0, colon));
    const std::string value = trimmed(text.substr(colon + 1));
    if (key == "num_groups") key = "num_unique_system_prompts";
    if (key == "num_prompts_per_group") key = "num_users_per_system_prompt";
    if (key == "num_unique_system_prompts" || key == "num_users_per_system_prompt" ||
        key == "system_prompt_len" || key == "question_len" || key == "output_len") {
      out[key] = parse_count_field(file.string() + ":" + std::to_string(n), key, value);
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace

bool is_inference_perf_run(const std::string& dir) {
  std::error_code ec;
  return fs::is_regular_file(fs::path(dir) / "profile.yaml", ec) &&
         fs::is_regular_file(fs::path(dir) / "exp-config.yaml", ec);
}

LifecycleFigures read_lifecycle_metrics(const std::string& path, int64_t output_len) {
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
    const double per_token = per_token_of_per_line(output_len);
    for (std::optional<double>* v : {&f.tpot_mean, &f.tpot_p50, &f.tpot_p90, &f.itl_mean}) {
      if (*v) **v *= per_token;
    }
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
  SharedPrefixData shared =
      parse_shared_prefix(json_member(data, "shared_prefix", profile_path + ": data"),
                          profile_path + ": data.shared_prefix");
  // What inference-perf ran with: versions before 0.4 did not read profile.yaml's
  // num_unique_system_prompts / num_users_per_system_prompt and ran their defaults (10 x 10),
  // which results/config.yaml records.
  const fs::path resolved_path = root / "results" / "config.yaml";
  if (const auto resolved = resolved_shared_prefix(resolved_path)) {
    const SharedPrefixData ran =
        parse_shared_prefix(*resolved, resolved_path.string() + ": data.shared_prefix");
    if (ran.groups != shared.groups || ran.users_per_group != shared.users_per_group) {
      run.notes.push_back("prompts as inference-perf ran them (results/config.yaml): " +
                          std::to_string(ran.groups) + " groups x " +
                          std::to_string(ran.users_per_group) + ", not profile.yaml's " +
                          std::to_string(shared.groups) + " x " +
                          std::to_string(shared.users_per_group));
    }
    shared = ran;
  }
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
    measured.push_back(read_lifecycle_metrics(p.string(), shared.output_len));
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
    run.measured = read_lifecycle_metrics(summary.string(), shared.output_len).figures;
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
