#include "sim/recorded/vllm_request_log_reader.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/recorded/recorded_engine.h"
#include "sim/recorded/recorded_files.h"
#include "sim/recorded/run_figures.h"

namespace llm {
namespace fs = std::filesystem;
namespace {

struct LoggedRequest {
  int64_t input = 0, output = 0;
  double queued = 0, first = 0, last = 0;
};

std::vector<LoggedRequest> read_logged_requests(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw TraceError(path + ": cannot open file");
  std::vector<LoggedRequest> out;
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string at = path + ":" + std::to_string(n);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw TraceError(at + ": invalid JSON: " + e.what());
    }
    LoggedRequest r;
    r.input = static_cast<int64_t>(json_number_at(j, "input_toks", at));
    r.output = static_cast<int64_t>(json_number_at(j, "output_toks", at));
    r.queued = json_number_at(j, "queued_ts", at);
    json_number_at(j, "scheduled_ts", at);
    r.first = json_number_at(j, "first_token_ts", at);
    r.last = json_number_at(j, "last_token_ts", at);
    if (r.input < 1 || r.output < 1)
      throw TraceError(at + ": input_toks/output_toks: must be >= 1");
    if (!(r.queued <= r.first && r.first <= r.last)) {
      throw TraceError(at + ": first_token_ts: the timestamps must run queued <= first <= last");
    }
    const std::string expected_id = "bench-" + std::to_string(out.size());
    if (!j.contains("request_id") || j.at("request_id") != expected_id) {
      throw TraceError(at + ": request_id: expected '" + expected_id + "' (the trace's order)");
    }
    out.push_back(r);
  }
  if (out.empty()) throw TraceError(path + ": no requests");
  return out;
}

uint64_t parse_hex_id(const std::string& label, const std::string& text) {
  uint64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 16);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    throw TraceError(label + ": block_hash_chain_sha256_12hex: '" + text + "' is not hexadecimal");
  }
  return v;
}

Trace read_trace_csv(const std::string& path) {
  Trace t;
  t.source = path;
  t.format = "vllm trace.csv";
  int64_t previous = 0;
  for (const CsvRow& row : read_csv_rows(path)) {
    const std::string at = path + ":" + std::to_string(row.line);
    TraceRequest r;
    const int64_t idx = parse_count_field(at, "idx", csv_field(path, row, "idx"));
    if (idx != static_cast<int64_t>(t.requests.size())) {
      throw TraceError(at + ": idx: expected " + std::to_string(t.requests.size()));
    }
    r.id = "bench-" + std::to_string(idx);
    r.arrival_ns =
        parse_count_field(at, "arrival_time_ns", csv_field(path, row, "arrival_time_ns"));
    if (r.arrival_ns < previous)
      throw TraceError(at + ": arrival_time_ns: earlier than the row before");
    previous = r.arrival_ns;
    r.prompt_len = parse_count_field(at, "input_toks", csv_field(path, row, "input_toks"));
    r.output_len = parse_count_field(at, "output_toks", csv_field(path, row, "output_toks"));
    if (r.prompt_len < 1 || r.output_len < 1)
      throw TraceError(at + ": input_toks/output_toks: must be >= 1");
    r.max_tokens = r.output_len;
    const auto chain = row.fields.find("block_hash_chain_sha256_12hex");
    if (chain != row.fields.end() && !chain->second.empty()) {
      size_t start = 0;
      while (start <= chain->second.size()) {
        const size_t semi = std::min(chain->second.find(';', start), chain->second.size());
        r.prefix_hash_ids.push_back(parse_hex_id(at, chain->second.substr(start, semi - start)));
        start = semi + 1;
      }
      r.hash_block_size = 16;
      if (static_cast<int64_t>(r.prefix_hash_ids.size()) * 16 > r.prompt_len + 15) {
        throw TraceError(at + ": block_hash_chain_sha256_12hex: more blocks than the prompt has");
      }
    }
    t.requests.push_back(std::move(r));
  }
  if (t.requests.empty()) throw TraceError(path + ": no requests");
  return t;
}

// The card named in LLMServingSim's cluster config.json, if there is one.
std::string card_in_cluster_config(const fs::path& dir) {
  std::error_code ec;
  const fs::path p = dir / "config.json";
  if (!fs::is_regular_file(p, ec)) return "";
  const nlohmann::json j = read_json_file(p.string());
  for (const auto& node : j.value("nodes", nlohmann::json::array())) {
    for (const auto& instance : node.value("instances", nlohmann::json::array())) {
      if (instance.contains("hardware") && instance.at("hardware").is_string()) {
        return instance.at("hardware").get<std::string>();
      }
    }
  }
  return "";
}

std::optional<int64_t> optional_engine_count(const nlohmann::json& o, const char* key,
                                             const std::string& label) {
  if (!o.contains(key) || o.at(key).is_null()) return std::nullopt;
  const double v = json_number_at(o, key, label);
  if (v < 1 || v != std::floor(v))
    throw TraceError(label + ": " + key + ": expected an integer >= 1");
  return static_cast<int64_t>(v);
}

}  // namespace

bool is_vllm_request_log(const std::string& dir) {
  std::error_code ec;
  const fs::path d(dir);
  return fs::is_regular_file(d / "vllm" / "requests.jsonl", ec) &&
         fs::is_regular_file(d / "vllm" / "meta.json", ec) &&
         fs::is_regular_file(d / "trace.csv", ec);
}

RecordedRun read_vllm_request_log(const std::string& dir, const RecordedOptions& options) {
  const fs::path d(dir);
  const std::string meta_path = (d / "vllm" / "meta.json").string();
  const std::string log_path = (d / "vllm" / "requests.jsonl").string();
  RecordedRun run;
  run.kind = "vllm-request-log";
  run.name = d.filename().empty() ? d.parent_path().filename().string() : d.filename().string();
  run.source = dir;
  run.view = MeasuredView::kEngine;
  run.trace = read_trace_csv((d / "trace.csv").string());

  const nlohmann::json meta = read_json_file(meta_path);
  if (!meta.contains("engine_kwargs") || !meta.at("engine_kwargs").is_object()) {
    throw TraceError(meta_path + ": engine_kwargs: expected an object");
  }
  const nlohmann::json& kw = meta.at("engine_kwargs");
  const std::string label = meta_path + ": engine_kwargs";
  if (!kw.contains("model") || !kw.at("model").is_string())
    throw TraceError(label + ": model: missing");
  if (optional_engine_count(kw, "data_parallel_size", label).value_or(1) != 1) {
    throw TraceError(label + ": data_parallel_size: only 1 is replayed");
  }
  RecordedServer s;
  s.label = label;
  s.model = kw.at("model").get<std::string>();
  s.card = card_in_cluster_config(d);
  if (s.card.empty() && options.gpu.empty()) {
    throw TraceError(dir + ": the card is not recorded (no config.json naming it): give --gpu");
  }
  s.tensor_parallel_size = optional_engine_count(kw, "tensor_parallel_size", label).value_or(1);
  s.max_num_seqs = optional_engine_count(kw, "max_num_seqs", label);
  s.max_num_batched_tokens = optional_engine_count(kw, "max_num_batched_tokens", label);
  s.max_model_len = optional_engine_count(kw, "max_model_len", label);
  if (kw.contains("kv_cache_dtype") && kw.at("kv_cache_dtype") != "auto") {
    throw TraceError(label + ": kv_cache_dtype: only auto is replayed, got " +
                     kw.at("kv_cache_dtype").dump());
  }
  run.model = s.model;
  run.gpu = s.card.empty() ? options.gpu : s.card;
  run.engine = recorded_engine_args(s, dir, options, run.notes);

  const std::vector<LoggedRequest> logged = read_logged_requests(log_path);
  if (logged.size() != run.trace.requests.size()) {
    throw TraceError(log_path + ": " + std::to_string(logged.size()) + " requests, trace.csv has " +
                     std::to_string(run.trace.requests.size()));
  }
  std::vector<double> ttft, e2e, tpot;
  for (size_t i = 0; i < logged.size(); ++i) {
    const LoggedRequest& r = logged[i];
    const TraceRequest& t = run.trace.requests[i];
    if (r.input != t.prompt_len || r.output != t.output_len) {
      throw TraceError(log_path + ":" + std::to_string(i + 1) +
                       ": input_toks/output_toks: differ from trace.csv's row " +
                       std::to_string(i));
    }
    ttft.push_back(1e3 * (r.first - r.queued));
    e2e.push_back(1e3 * (r.last - r.queued));
    if (r.output > 1) tpot.push_back(1e3 * (r.last - r.first) / static_cast<double>(r.output - 1));
  }
  run.measured = figures_of_samples(ttft, e2e, tpot);
  run.stages.push_back({"all", 0, run.trace.requests.size(), run.measured});
  return run;
}

}  // namespace llm
