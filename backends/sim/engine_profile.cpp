#include "backends/sim/engine_profile.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "backends/sim/json_fields.h"

namespace llm {
namespace {

using sim_json::FieldReader;
using sim_json::json;
using sim_json::read_json_object;
using sim_json::require_positive;

constexpr int64_t kFormatVersion = 1;

// The step model's fields, in file order, with their members. multi_token_ns came later: a
// profile without it prices every step as before (0).
struct StepField {
  const char* name;
  double FittedStepModel::*member;
  bool required = true;
};
constexpr StepField kStepFields[] = {
    {"overhead_ns", &FittedStepModel::overhead_ns},
    {"per_sequence_ns", &FittedStepModel::per_sequence_ns},
    {"per_token_ns", &FittedStepModel::per_token_ns},
    {"token_knee", &FittedStepModel::token_knee},
    {"per_context_token_ns", &FittedStepModel::per_context_token_ns},
    {"per_attention_pair_ns", &FittedStepModel::per_attention_pair_ns},
    {"per_sample_ns", &FittedStepModel::per_sample_ns},
    {"sample_knee", &FittedStepModel::sample_knee},
    {"multi_token_ns", &FittedStepModel::multi_token_ns, false},
};

// Fails naming the field of a "FIELD: detail" problem; nothing for "".
void fail_on_problem(const FieldReader& r, const std::string& problem) {
  if (problem.empty()) return;
  const size_t colon = problem.find(':');
  r.fail(problem.substr(0, colon), problem.substr(colon + 2));
}

void read_engine(const json& obj, const std::string& label, EngineProfile& p) {
  FieldReader r(obj, label);
  r.read("async_scheduling", p.async_scheduling, false);
  r.read("num_gpu_blocks", p.num_gpu_blocks, true);
  r.read("block_size", p.block_size, true);
  r.read("kv_cache_dtype", p.kv_cache_dtype, false);
  r.read("max_model_len", p.max_model_len, true);
  r.read("vocab_size", p.vocab_size, true);
  int64_t seqs = 0, tokens = 0;
  r.read("max_num_seqs", seqs, false);
  r.read("max_num_batched_tokens", tokens, false);
  r.reject_unknown();
  if (r.has("max_num_seqs")) {
    require_positive(r, "max_num_seqs", static_cast<double>(seqs));
    p.max_num_seqs = seqs;
  }
  if (r.has("max_num_batched_tokens")) {
    require_positive(r, "max_num_batched_tokens", static_cast<double>(tokens));
    p.max_num_batched_tokens = tokens;
  }
  const std::pair<const char*, int64_t> at_least_two[] = {{"num_gpu_blocks", p.num_gpu_blocks},
                                                          {"max_model_len", p.max_model_len},
                                                          {"vocab_size", p.vocab_size}};
  for (const auto& [key, value] : at_least_two) {
    if (value < 2) r.fail(key, "must be at least 2, got " + std::to_string(value));
  }
  require_positive(r, "block_size", static_cast<double>(p.block_size));
}

void read_step(const json& obj, const std::string& label, FittedStepModel& m) {
  FieldReader r(obj, label);
  for (const StepField& f : kStepFields) r.read(f.name, m.*f.member, f.required);
  r.reject_unknown();
  fail_on_problem(r, fitted_model_problem(m));
}

void read_noise(const json& obj, const std::string& label, StepTimeNoise& n) {
  FieldReader r(obj, label);
  r.read("probabilities", n.probabilities, true);
  r.read("ratios", n.ratios, true);
  r.reject_unknown();
  fail_on_problem(r, step_noise_problem(n));
}

void read_fit(const json& obj, const std::string& label, ProfileFit& f) {
  FieldReader r(obj, label);
  r.read("steps", f.steps, true);
  r.read("median_abs_error", f.median_abs_error, true);
  r.read("p90_abs_error", f.p90_abs_error, true);
  r.read("max_abs_error", f.max_abs_error, true);
  r.reject_unknown();
}

}  // namespace

EngineProfile load_engine_profile(const std::string& path) {
  const json root = read_json_object(path);
  FieldReader r(root, path);
  int64_t version = 0;
  r.read("llmsim_profile", version, true);
  if (version != kFormatVersion) {
    r.fail("llmsim_profile", "this llmsim reads version " + std::to_string(kFormatVersion) +
                                 ", got " + std::to_string(version));
  }
  EngineProfile p;
  r.read("source", p.source, false);
  r.read("model", p.model, false);
  read_engine(r.object("engine"), path + ": engine", p);
  read_step(r.object("step_time"), path + ": step_time", p.step);
  if (const json* noise = r.object_if("step_time_noise")) {
    read_noise(*noise, path + ": step_time_noise", p.step_noise.emplace());
  }
  if (const json* fit = r.object_if("fit")) read_fit(*fit, path + ": fit", p.fit);
  if (const json* api = r.object_if("api_server")) {
    p.api_server = read_api_server_costs(*api, path + ": api_server");
  }
  r.reject_unknown();
  return p;
}

std::string engine_profile_json(const EngineProfile& p) {
  nlohmann::ordered_json j;
  j["llmsim_profile"] = kFormatVersion;
  j["source"] = p.source;
  j["model"] = p.model;
  auto& e = j["engine"];
  e["async_scheduling"] = p.async_scheduling;
  e["num_gpu_blocks"] = p.num_gpu_blocks;
  e["block_size"] = p.block_size;
  e["kv_cache_dtype"] = p.kv_cache_dtype;
  e["max_model_len"] = p.max_model_len;
  e["vocab_size"] = p.vocab_size;
  if (p.max_num_seqs) e["max_num_seqs"] = *p.max_num_seqs;
  if (p.max_num_batched_tokens) e["max_num_batched_tokens"] = *p.max_num_batched_tokens;
  auto& s = j["step_time"];
  for (const StepField& f : kStepFields) s[f.name] = p.step.*f.member;
  if (p.step_noise) {
    auto& n = j["step_time_noise"];
    n["probabilities"] = p.step_noise->probabilities;
    n["ratios"] = p.step_noise->ratios;
  }
  auto& fit = j["fit"];
  fit["steps"] = p.fit.steps;
  fit["median_abs_error"] = p.fit.median_abs_error;
  fit["p90_abs_error"] = p.fit.p90_abs_error;
  fit["max_abs_error"] = p.fit.max_abs_error;
  if (p.api_server) j["api_server"] = api_server_costs_json(*p.api_server);
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace llm
