#include "sim/report/deployment_facts.h"

#include <cstdio>

#include "sim/replay/summary_figures.h"

namespace llm {
namespace {

std::string with_default(const std::string& value, bool given) {
  return given ? value : value + " (default)";
}

std::string utilization_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

ReportFacts deployment_facts(const EngineArgs& given, const ResolvedEngine& resolved,
                             int32_t engines, const std::string& routing_policy) {
  const Deployment& d = resolved.deployment;
  const SchedulerConfig& s = resolved.scheduler;
  ReportFacts f;
  f.emplace_back("GPU", d.fitted ? "calibrated profile (" + resolved.model_name + ")" : d.gpu.name);
  f.emplace_back("Model", resolved.model_name);
  f.emplace_back("Tensor parallel", std::to_string(d.tensor_parallel_size));
  f.emplace_back(
      "Engines (data parallel)",
      std::to_string(engines) + (engines > 1 ? ", routed by " + routing_policy : std::string()));
  f.emplace_back("GPUs", std::to_string(static_cast<int64_t>(engines) * d.tensor_parallel_size));
  f.emplace_back("KV blocks per engine", with_default(std::to_string(s.num_gpu_blocks),
                                                      given.num_gpu_blocks_override.has_value()) +
                                             " of " + std::to_string(s.block_size) + " tokens");
  std::string args;
  const auto add = [&args](const std::string& flag, const std::string& value, bool was_given) {
    args += (args.empty() ? "" : " ") + flag + " " + value + (was_given ? "" : "*");
  };
  add("--max-num-seqs", std::to_string(s.max_num_seqs), given.max_num_seqs.has_value());
  add("--max-num-batched-tokens", std::to_string(s.max_num_batched_tokens),
      given.max_num_batched_tokens.has_value());
  add("--max-model-len", std::to_string(s.max_model_len), given.max_model_len.has_value());
  add("--block-size", std::to_string(s.block_size), given.block_size.has_value());
  add("--gpu-memory-utilization", utilization_text(given.gpu_memory_utilization),
      given.gpu_memory_utilization != EngineArgs{}.gpu_memory_utilization);
  add("--kv-cache-dtype", resolved.kv_cache_dtype, given.kv_cache_dtype.has_value());
  args += s.enable_prefix_caching ? " --enable-prefix-caching" : " --no-enable-prefix-caching";
  args += s.enable_chunked_prefill ? " --enable-chunked-prefill" : " --no-enable-chunked-prefill";
  // The admission knobs only where they differ from vLLM's defaults (the cap off; the full-prompt
  // gate on), so that a report of a run without them reads as before.
  if (s.max_num_active_seqs > 0)
    add("--max-num-active-seqs", std::to_string(s.max_num_active_seqs), true);
  if (!s.scheduler_reserve_full_isl) args += " --no-scheduler-reserve-full-isl";
  f.emplace_back("Engine arguments (* default)", args);
  return f;
}

ReportFacts slo_facts(const std::vector<SloTarget>& targets,
                      const std::vector<SloResult>& results) {
  ReportFacts f;
  if (targets.empty()) return f;
  std::string missed;
  for (const SloResult& r : results) {
    if (r.met) continue;
    missed += (missed.empty() ? "" : ", ") + r.key + " " + format_figure(r.key, r.value) +
              (lower_is_better(r.key) ? " > " : " < ") + format_figure(r.key, r.target);
  }
  f.emplace_back("SLO targets", describe_slo(targets));
  f.emplace_back("SLO verdict", missed.empty() ? "met" : "MISSED: " + missed);
  return f;
}

}  // namespace llm
