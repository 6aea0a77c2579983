#include "calibrate/gpu_fit/kv_memory_fit.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

#include "backends/sim/cost_model.h"
#include "calibrate/gpu_fit/log_fit.h"
#include "calibrate/gpu_fit/truth_models.h"

namespace llm {

std::vector<KvBlockSample> read_kv_block_samples(const std::string& truth_root) {
  const std::string path =
      (std::filesystem::path(truth_root) / "blis" / "trainval-exact-config.json").string();
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open file");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(path + ": invalid JSON: " + e.what());
  }
  if (!j.contains("experiments") || !j["experiments"].is_array()) {
    throw std::invalid_argument(path + ": missing field 'experiments'");
  }
  std::vector<KvBlockSample> out;
  std::set<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>> seen;
  size_t index = 0;
  for (const nlohmann::json& e : j["experiments"]) {
    const std::string where = path + ": experiments[" + std::to_string(index++) + "]";
    for (const char* key :
         {"model", "tp", "max_num_seqs", "max_num_batched_tokens", "total_kv_blocks"}) {
      if (!e.contains(key)) throw std::invalid_argument(where + ": missing field '" + key + "'");
    }
    KvBlockSample s;
    const std::string model = e["model"].get<std::string>();
    s.tensor_parallel_size = e["tp"].get<int64_t>();
    s.max_num_seqs = e["max_num_seqs"].get<int64_t>();
    s.max_num_batched_tokens = e["max_num_batched_tokens"].get<int64_t>();
    s.logged_blocks = e["total_kv_blocks"].get<int64_t>();
    if (!seen.insert({model, s.tensor_parallel_size, s.max_num_seqs, s.max_num_batched_tokens,
                      s.logged_blocks})
             .second) {
      continue;
    }
    s.model = truth_model(truth_root, model);
    s.source = where + " (" + model_short_name(model) + " tp" +
               std::to_string(s.tensor_parallel_size) + ", max_num_batched_tokens " +
               std::to_string(s.max_num_batched_tokens) + ")";
    // Llama 4's chunked local attention is sized apart by vLLM's hybrid KV-cache manager.
    s.fitted = model.find("Llama-4") == std::string::npos;
    out.push_back(s);
  }
  return out;
}

double predicted_kv_blocks(const GpuProfile& g, const KvBlockSample& s) {
  Deployment d;
  d.gpu = g;
  d.model = s.model;
  d.tensor_parallel_size = s.tensor_parallel_size;
  d.kv_cache_dtype_bytes = 2;
  return kv_cache_bytes_per_gpu(d, s.gpu_memory_utilization, s.max_num_batched_tokens,
                                s.max_num_seqs) /
         static_cast<double>(kv_block_bytes_per_gpu(d, s.block_size));
}

std::vector<double> fit_kv_memory(GpuProfile& g, const std::vector<KvBlockSample>& samples) {
  std::vector<size_t> fitted;
  std::vector<double> measured;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!samples[i].fitted) continue;
    fitted.push_back(i);
    measured.push_back(static_cast<double>(samples[i].logged_blocks));
  }
  if (!fitted.empty()) {
    using M = GpuMemoryCoefficients;
    const double M::*members[] = {&M::reserved_bytes, &M::tensor_parallel_bytes,
                                  &M::sampler_bytes_per_logit, &M::activation_bytes_per_hidden};
    std::vector<double> x0;
    for (auto m : members) x0.push_back(std::max(g.memory.*m, 1e-3));
    const LogFitResult r = fit_log_least_squares(
        [&](const std::vector<double>& x, size_t i) {
          GpuProfile t = g;
          t.memory = {x[0], x[1], x[2], x[3]};
          return predicted_kv_blocks(t, samples[fitted[i]]);
        },
        measured, x0, false);
    g.memory = {r.params[0], r.params[1], r.params[2], r.params[3]};
  }
  std::vector<double> errors;
  for (const KvBlockSample& s : samples) {
    errors.push_back(predicted_kv_blocks(g, s) / static_cast<double>(s.logged_blocks) - 1.0);
  }
  return errors;
}

}  // namespace llm
