#include "sim/recorded/shared_prefix_load.h"

#include <cmath>

#include "core/ceil_div.h"
#include "core/rng.h"

namespace llm {
namespace {

constexpr int32_t kHashBlock = 16;
constexpr uint64_t kGroupSpace = 1ULL << 40, kSlotSpace = 2ULL << 40;

int64_t positive_integer_at(const nlohmann::json& obj, const char* key, const std::string& label) {
  if (!obj.contains(key)) throw TraceError(label + ": " + key + ": missing");
  const nlohmann::json& v = obj.at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < 1) {
    throw TraceError(label + ": " + key + ": expected an integer >= 1, got " + v.dump());
  }
  return v.get<int64_t>();
}

double positive_number_at(const nlohmann::json& obj, const char* key, const std::string& label) {
  if (!obj.contains(key)) throw TraceError(label + ": " + key + ": missing");
  const nlohmann::json& v = obj.at(key);
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>())) {
    throw TraceError(label + ": " + key + ": expected a number > 0, got " + v.dump());
  }
  return v.get<double>();
}

}  // namespace

SharedPrefixData parse_shared_prefix(const nlohmann::json& o, const std::string& label) {
  if (!o.is_object()) throw TraceError(label + ": expected an object");
  SharedPrefixData d;
  d.groups = positive_integer_at(o, "num_unique_system_prompts", label);
  d.users_per_group = positive_integer_at(o, "num_users_per_system_prompt", label);
  d.system_prompt_len = positive_integer_at(o, "system_prompt_len", label);
  d.question_len = positive_integer_at(o, "question_len", label);
  d.output_len = positive_integer_at(o, "output_len", label);
  return d;
}

std::vector<ConstantStage> parse_constant_stages(const nlohmann::json& a,
                                                 const std::string& label) {
  if (!a.is_array() || a.empty()) throw TraceError(label + ": expected a non-empty array");
  std::vector<ConstantStage> stages;
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string at = label + "[" + std::to_string(i) + "]";
    if (!a[i].is_object()) throw TraceError(at + ": expected an object");
    ConstantStage s{positive_number_at(a[i], "rate", at), positive_number_at(a[i], "duration", at)};
    if (s.rate * s.duration_s > 1e7) throw TraceError(at + ": over 10 million requests");
    stages.push_back(s);
  }
  return stages;
}

int64_t shared_prefix_prompt_len(const SharedPrefixData& d) {
  return std::llround(1.04 * static_cast<double>(d.system_prompt_len + d.question_len)) + 5;
}

Trace shared_prefix_trace(const SharedPrefixData& d, const std::vector<ConstantStage>& stages,
                          const std::vector<double>& drain_s, uint64_t seed,
                          std::vector<std::pair<size_t, size_t>>* ranges) {
  Trace trace;
  trace.format = "inference-perf shared_prefix";
  const int64_t slots = d.groups * d.users_per_group;
  const int64_t prompt_len = shared_prefix_prompt_len(d);
  // BOS and the system prompt are shared within a group; blocks wholly inside them are the
  // group's, the rest the slot's own.
  const int64_t shared = 1 + std::llround(1.04 * static_cast<double>(d.system_prompt_len));
  const int64_t blocks = ceil_div(prompt_len, kHashBlock);
  Rng rng(seed);
  double stage_start = 0;
  size_t k = 0;
  for (size_t s = 0; s < stages.size(); ++s) {
    const auto n = static_cast<size_t>(std::llround(stages[s].rate * stages[s].duration_s));
    std::vector<double> gaps(n);
    double total = 0;
    for (double& g : gaps) total += (g = rng.exponential(1.0));
    const size_t first = trace.requests.size();
    double cumulative = 0;
    for (size_t i = 0; i < n; ++i, ++k) {
      // ConstantLoadTimer: the first request one (rescaled) gap after the stage's start, the
      // last at its end; each stage numbers its requests from 0 (inference-perf's run_stage).
      cumulative += gaps[i];
      const double t = stage_start + stages[s].duration_s * cumulative / total;
      const int64_t slot = static_cast<int64_t>(i % static_cast<size_t>(slots));
      const int64_t group = slot / d.users_per_group;
      TraceRequest r;
      r.id = "s" + std::to_string(s) + "-" + std::to_string(k);
      r.arrival_ns = std::llround(t * 1e9);
      r.prompt_len = prompt_len;
      r.output_len = d.output_len;
      r.max_tokens = d.output_len;
      r.hash_block_size = kHashBlock;
      for (int64_t b = 0; b < blocks; ++b) {
        const bool in_system = (b + 1) * kHashBlock <= shared;
        r.prefix_hash_ids.push_back(in_system
                                        ? kGroupSpace + (static_cast<uint64_t>(group) << 20) + b
                                        : kSlotSpace + (static_cast<uint64_t>(slot) << 20) + b);
      }
      trace.requests.push_back(std::move(r));
    }
    if (ranges) ranges->push_back({first, trace.requests.size()});
    stage_start += stages[s].duration_s + (s < drain_s.size() ? drain_s[s] : 0);
  }
  return trace;
}

}  // namespace llm
