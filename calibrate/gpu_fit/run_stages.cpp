#include "calibrate/gpu_fit/run_stages.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "calibrate/gpu_fit/csv_table.h"
#include "calibrate/gpu_fit/simple_yaml.h"
#include "calibrate/gpu_fit/truth_models.h"

namespace llm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Prompt tokens of an inference-perf shared_prefix request: random token text re-tokenized, plus
// BOS (gpu-truth/README.md: about 1.04 x (system + question) + 5).
double inference_perf_prompt_tokens(double system_len, double question_len) {
  return 1.04 * (system_len + question_len) + 5.0;
}

// New tokens a request whose prompt is in the prefix cache still computes: the partial last block
// (8 of 16 on average) and the token it samples from.
constexpr double kCachedPromptNewTokens = 9.0;

const json& at(const json& j, const std::string& key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) {
    throw std::invalid_argument(where + ": missing field '" + key + "'");
  }
  return j[key];
}

double num(const json& j, const std::string& key, const std::string& where) {
  const json& v = at(j, key, where);
  if (!v.is_number()) throw std::invalid_argument(where + ": field '" + key + "': not a number");
  return v.get<double>();
}

json read_json_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open file");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    throw std::invalid_argument(path + ": invalid JSON: " + e.what());
  }
}

StageSample stage_sample(const ModelShape& m, int64_t tp, int64_t mnbt, double rate, double e2e_s,
                         double ttft_s, double prompt, double output_len,
                         const std::string& source) {
  StageSample s;
  s.card = "H100-SXM";
  s.origin = "blis runs";
  s.group = model_short_name(m.name) + " tp" + std::to_string(tp);
  s.source = source;
  s.model = m;
  s.tensor_parallel_size = tp;
  s.max_num_batched_tokens = mnbt;
  s.measured_ns = (e2e_s - ttft_s) / (output_len - 1.0) * 1e9;
  s.decode_sequences = rate * e2e_s;
  s.mean_context = prompt + output_len / 2.0;
  s.prefill_tokens_per_step = rate * kCachedPromptNewTokens * s.measured_ns * 1e-9;
  s.prefill_chunk_tokens = kCachedPromptNewTokens;
  s.prefill_chunk_context = std::max(prompt - kCachedPromptNewTokens, 0.0);
  return s;
}

bool overloaded(double e2e_s, double ttft_s) { return ttft_s > 0.5 * (e2e_s - ttft_s); }

// blis/measured.csv: the 13 v0.15.1 runs, per stage.
void read_measured(const std::string& root, std::vector<StageSample>& out,
                   std::set<std::string>& folders) {
  const fs::path blis = fs::path(root) / "blis";
  const CsvTable ex = CsvTable::read((blis / "experiments.csv").string());
  const CsvTable measured = CsvTable::read((blis / "measured.csv").string());
  const json trainval = read_json_file((blis / "trainval-exact-config.json").string());
  std::map<std::string, std::map<std::string, double>> metrics;  // "folder/stage" -> metric
  for (size_t i = 0; i < measured.rows(); ++i) {
    const std::string key =
        measured.text(i, "folder") + "/" + measured.text(i, "stage_index(-1=whole run)");
    metrics[key][measured.text(i, "metric(ms)")] = measured.number(i, "actual_ms");
  }
  for (size_t i = 0; i < ex.rows(); ++i) {
    const std::string folder = ex.text(i, "folder");
    folders.insert(folder);
    const ModelShape m = truth_model(root, ex.text(i, "model"));
    const int64_t tp = static_cast<int64_t>(ex.number(i, "tp"));
    const int64_t mnbt = static_cast<int64_t>(ex.number(i, "max_num_batched_tokens"));
    const double prompt = inference_perf_prompt_tokens(ex.number(i, "inferred_sys_prompt_len"),
                                                       ex.number(i, "inferred_question_len"));
    const double output_len = ex.number(i, "inferred_output_len");
    // "600s@2.5;600s@6": each stage's rate.
    std::vector<double> rates;
    std::string stages = ex.text(i, "inferred_stages");
    for (size_t pos = 0; pos < stages.size();) {
      const size_t end = std::min(stages.find(';', pos), stages.size());
      const std::string stage = stages.substr(pos, end - pos);
      const size_t at_sign = stage.find('@');
      if (at_sign == std::string::npos) {
        throw std::invalid_argument(ex.where(i) + ": column 'inferred_stages': '" + stages + "'");
      }
      rates.push_back(std::stod(stage.substr(at_sign + 1)));
      pos = end + 1;
    }
    (void)trainval;
    for (size_t stage = 0; stage < rates.size(); ++stage) {
      const auto it = metrics.find(folder + "/" + std::to_string(stage));
      if (it == metrics.end()) continue;
      const double e2e = it->second.at("e2e_mean") / 1e3;
      const double ttft = it->second.at("ttft_mean") / 1e3;
      if (overloaded(e2e, ttft)) continue;
      out.push_back(stage_sample(
          m, tp, mnbt, rates[stage], e2e, ttft, prompt, output_len,
          (blis / "measured.csv").string() + ": " + folder + " stage " + std::to_string(stage)));
    }
  }
}

// blis/runs/*: the older runs' lifecycle metrics per stage.
void read_older_runs(const std::string& root, const std::set<std::string>& skip,
                     std::vector<StageSample>& out) {
  const fs::path runs = fs::path(root) / "blis" / "runs";
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(runs)) {
    if (entry.is_directory() && !skip.contains(entry.path().filename().string())) {
      dirs.push_back(entry.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& dir : dirs) {
    const std::string cfg_path = (dir / "exp-config.yaml").string();
    const json cfg = read_simple_yaml(cfg_path);
    const json profile = read_simple_yaml((dir / "profile.yaml").string());
    const std::string where = (dir / "profile.yaml").string();
    const json& prefix = at(at(profile, "data", where), "shared_prefix", where);
    const double output_len = num(prefix, "output_len", where);
    const ModelShape m = truth_model(root, at(cfg, "model", cfg_path).get<std::string>());
    const int64_t tp = static_cast<int64_t>(num(cfg, "tensor_parallelism", cfg_path));
    const int64_t mnbt = static_cast<int64_t>(num(cfg, "max_num_batched_tokens", cfg_path));
    for (int stage = 0;; ++stage) {
      const fs::path file =
          dir / "results" / ("stage_" + std::to_string(stage) + "_lifecycle_metrics.json");
      if (!fs::is_regular_file(file)) break;
      const json j = read_json_file(file.string());
      const std::string w = file.string();
      const json& ok = at(j, "successes", w);
      const double failed = j.contains("failures") ? num(j["failures"], "count", w) : 0.0;
      if (failed > 0) continue;
      const json& latency = at(ok, "latency", w);
      const double e2e = num(at(latency, "request_latency", w), "mean", w);
      const double ttft = num(at(latency, "time_to_first_token", w), "mean", w);
      if (overloaded(e2e, ttft)) continue;
      const double rate = num(at(j, "load_summary", w), "requested_rate", w);
      const double prompt = num(at(ok, "prompt_len", w), "mean", w);
      out.push_back(stage_sample(m, tp, mnbt, rate, e2e, ttft, prompt, output_len,
                                 w + " stage " + std::to_string(stage)));
    }
  }
}

}  // namespace

std::vector<StageSample> read_blis_run_stages(const std::string& truth_root) {
  std::vector<StageSample> out;
  std::set<std::string> folders;
  read_measured(truth_root, out, folders);
  read_older_runs(truth_root, folders, out);
  return out;
}

std::vector<StageSample> read_rtx_pro_6000_run(const std::string& truth_root) {
  const fs::path dir = fs::path(truth_root) / "llmservingsim" / "rtxpro6000-llama-3.1-8b" / "vllm";
  const std::string meta_path = (dir / "meta.json").string();
  const json meta = read_json_file(meta_path);
  const json& kwargs = at(meta, "engine_kwargs", meta_path);
  const ModelShape m = truth_model(truth_root, at(kwargs, "model", meta_path).get<std::string>());
  const int64_t tp = static_cast<int64_t>(num(kwargs, "tensor_parallel_size", meta_path));
  const int64_t mnbt = static_cast<int64_t>(num(kwargs, "max_num_batched_tokens", meta_path));
  const json& started = at(meta, "started_at", meta_path);
  std::tm tm{};
  double seconds = 0;
  if (!started.is_string() ||
      std::sscanf(started.get<std::string>().c_str(), "%d-%d-%dT%d:%d:%lfZ", &tm.tm_year,
                  &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &seconds) != 6) {
    throw std::invalid_argument(meta_path +
                                ": field 'started_at': expected YYYY-MM-DDTHH:MM:SS.sZ");
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const double start_epoch = static_cast<double>(timegm(&tm)) + seconds;

  struct Req {
    double input, output, first, last;
  };
  std::vector<Req> reqs;
  std::vector<double> offsets;  // epoch - monotonic clock, per request
  const std::string path = (dir / "requests.jsonl").string();
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open file");
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(line_no);
    json j;
    try {
      j = json::parse(line);
    } catch (const json::exception& e) {
      throw std::invalid_argument(where + ": invalid JSON: " + e.what());
    }
    Req r{num(j, "input_toks", where), num(j, "output_toks", where),
          num(j, "first_token_ts", where), num(j, "last_token_ts", where)};
    if (!(num(j, "scheduled_ts", where) <= r.first && r.first <= r.last)) {
      throw std::invalid_argument(where + ": timestamps out of order");
    }
    offsets.push_back(num(j, "arrival_time", where) - num(j, "queued_ts", where));
    reqs.push_back(r);
  }
  if (reqs.empty()) throw std::invalid_argument(path + ": no requests");
  std::sort(offsets.begin(), offsets.end());
  const double offset = offsets[offsets.size() / 2];

  // Per second of the server's own counters: prompt and generated tokens, read against the
  // requests decoding at the middle of that second.
  const CsvTable series = CsvTable::read((dir / "timeseries.csv").string());
  std::vector<StageSample> out;
  for (size_t row = 0; row < series.rows(); ++row) {
    const double t = series.number(row, "t");
    const double hi = start_epoch + t - offset;  // on the requests' clock
    const double lo = hi - 1.0;
    const double mid = hi - 0.5;
    double decoding = 0, context = 0, first_tokens = 0;
    for (const Req& r : reqs) {
      if (r.first <= mid && mid < r.last && r.output > 1) {
        decoding += 1;
        context += r.input + 1.0 + (r.output - 1.0) * (mid - r.first) / (r.last - r.first);
      }
      if (lo <= r.first && r.first < hi) first_tokens += 1;
    }
    const double generated = series.number(row, "gen_throughput") - first_tokens;
    if (decoding < 1 || generated < 3 * decoding) continue;  // too few steps to time
    const double steps = generated / decoding;
    StageSample s;
    s.card = "RTX-PRO-6000";
    s.origin = "llmservingsim run";
    s.group = model_short_name(m.name) + " tp" + std::to_string(tp);
    s.source = series.where(row);
    s.model = m;
    s.tensor_parallel_size = tp;
    s.max_num_batched_tokens = mnbt;
    s.decode_sequences = decoding;
    s.mean_context = context / decoding;
    s.prefill_tokens_per_step = series.number(row, "prompt_throughput") / steps;
    // Chunked prefill fills each step's token budget with prompt tokens: chunks of the budget
    // left beside the decodes, of prompts that begin fresh (ShareGPT: no shared prefixes).
    s.prefill_chunk_tokens = std::max(static_cast<double>(mnbt) - decoding, 1.0);
    s.prefill_chunk_context = 0;
    s.measured_ns = 1e9 / steps;
    out.push_back(s);
  }
  return out;
}

std::vector<StageSample> read_splitwise_decodes(const std::string& truth_root,
                                                const std::string& hardware) {
  const std::string path =
      (fs::path(truth_root) / "op-profiles" / "splitwise" / "perf_model.csv").string();
  const CsvTable t = CsvTable::read(path);
  const ModelShape m = truth_model(truth_root, "llama2-70b");
  struct Key {
    int64_t tp, prompt, batch, tokens;
    bool operator<(const Key& o) const {
      return std::tie(tp, prompt, batch, tokens) < std::tie(o.tp, o.prompt, o.batch, o.tokens);
    }
  };
  std::map<Key, std::pair<double, int>> sums;  // token_time (ms) sum and count
  std::map<Key, std::string> where;
  for (size_t i = 0; i < t.rows(); ++i) {
    if (t.text(i, "model") != "llama2-70b" || t.text(i, "hardware") != hardware) continue;
    const Key k{static_cast<int64_t>(t.number(i, "tensor_parallel")),
                static_cast<int64_t>(t.number(i, "prompt_size")),
                static_cast<int64_t>(t.number(i, "batch_size")),
                static_cast<int64_t>(t.number(i, "token_size"))};
    sums[k].first += t.number(i, "token_time");
    sums[k].second += 1;
    if (!where.contains(k)) where[k] = t.where(i);
  }
  std::vector<StageSample> out;
  for (const auto& [k, sum] : sums) {
    StageSample s;
    s.card = hardware;
    s.origin = "splitwise";
    s.group = "Llama-2-70b tp" + std::to_string(k.tp);
    s.source = where[k];
    s.model = m;
    s.tensor_parallel_size = k.tp;
    s.decode_sequences = static_cast<double>(k.batch);
    s.mean_context = static_cast<double>(k.prompt) + static_cast<double>(k.tokens) / 2.0;
    s.measured_ns = sum.first / sum.second * 1e6;
    out.push_back(s);
  }
  return out;
}

}  // namespace llm
