#include "backends/sim/resolve_engine_args.h"

#include <climits>
#include <cstdio>
#include <stdexcept>

#include "backends/sim/engine_profile.h"
#include "backends/sim/presets.h"
#include "core/flag_values.h"

namespace llm {
namespace {

// Runs fn; an exception from it becomes a UsageError prefixed with the flag.
template <typename Fn>
auto for_flag(const char* flag, Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    throw UsageError(std::string(flag) + ": " + e.what());
  }
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

namespace {

// The simulated deployment of --gpu and --model (the roofline), and vLLM's defaults for it.
void resolve_presets(const EngineArgs& a, ResolvedEngine& r) {
  Deployment& d = r.deployment;
  d.gpu = for_flag("--gpu", [&] { return load_gpu_profile(a.gpu); });
  d.model = for_flag("--model", [&] { return load_model_shape(a.model); });
  r.kv_cache_dtype = a.kv_cache_dtype.value_or("auto");
  d.kv_cache_dtype_bytes =
      for_flag("--kv-cache-dtype", [&] { return kv_cache_dtype_bytes(r.kv_cache_dtype); });
  d.tensor_parallel_size = a.tensor_parallel_size;
  if (a.tensor_parallel_size < 1 || d.model.heads % a.tensor_parallel_size != 0) {
    throw UsageError("--tensor-parallel-size " + std::to_string(a.tensor_parallel_size) +
                     " does not divide the model's " + std::to_string(d.model.heads) +
                     " attention heads");
  }
  // vLLM's defaults for the OpenAI server: larger on 70 GiB+ GPUs other than the A100.
  const bool large_gpu =
      d.gpu.memory_bytes >= 70.0 * (1ull << 30) && d.gpu.name.find("A100") == std::string::npos;
  SchedulerConfig& s = r.scheduler;
  s.max_num_seqs = a.max_num_seqs.value_or(large_gpu ? 1024 : 256);
  s.max_num_batched_tokens = a.max_num_batched_tokens.value_or(large_gpu ? 8192 : 2048);
  s.block_size = a.block_size.value_or(16);
  r.model_name = a.model;
}

// The calibrated engine of --profile: its step model, and its facts as the flags' defaults.
void resolve_profile(const EngineArgs& a, ResolvedEngine& r, EngineProfile& p) {
  if (a.gpu_or_model_given) {
    throw UsageError(
        "--profile: replaces --gpu and --model (the profile is the engine); drop them");
  }
  if (a.tensor_parallel_size != 1) {
    throw UsageError("--tensor-parallel-size: a profile was measured as it is; it cannot be split");
  }
  p = for_flag("--profile", [&] { return load_engine_profile(a.profile); });
  Deployment& d = r.deployment;
  d.fitted = p.step;
  if (!a.no_step_noise) d.step_noise = p.step_noise;
  d.gpu.name = "profile";
  d.model.name = p.model.empty() ? a.profile : p.model;
  d.model.vocab = p.vocab_size;
  d.model.max_context = p.max_model_len;
  r.kv_cache_dtype = a.kv_cache_dtype.value_or(p.kv_cache_dtype);
  SchedulerConfig& s = r.scheduler;
  s.max_num_seqs = a.max_num_seqs.value_or(static_cast<int32_t>(p.max_num_seqs.value_or(256)));
  s.max_num_batched_tokens =
      a.max_num_batched_tokens.value_or(p.max_num_batched_tokens.value_or(2048));
  s.block_size = a.block_size.value_or(static_cast<int32_t>(p.block_size));
  r.model_name = d.model.name;
}

// KV capacity: --num-gpu-blocks-override, the profile's measured count (at its block size), or
// what fits in the simulated GPU's memory.
int64_t resolve_num_blocks(const EngineArgs& a, const ResolvedEngine& r,
                           const std::optional<EngineProfile>& profile) {
  if (a.num_gpu_blocks_override) return *a.num_gpu_blocks_override;
  const SchedulerConfig& s = r.scheduler;
  if (profile) {
    // The same KV memory in blocks of another size (--block-size over a profile).
    return profile->num_gpu_blocks * profile->block_size / s.block_size;
  }
  const int64_t blocks = num_gpu_blocks(r.deployment, a.gpu_memory_utilization, s.block_size,
                                        s.max_num_batched_tokens);
  if (blocks < 2) {
    throw UsageError(
        "--gpu-memory-utilization: the model's weights leave no room for a KV cache on --gpu " +
        a.gpu + " at " + number_text(a.gpu_memory_utilization) +
        "; raise --tensor-parallel-size or pick a larger GPU");
  }
  return blocks;
}

}  // namespace

ResolvedEngine resolve_engine_args(const EngineArgs& a) {
  if (a.gpu_memory_utilization <= 0 || a.gpu_memory_utilization > 1) {
    throw UsageError("--gpu-memory-utilization: must be in (0, 1]");
  }
  if (a.no_step_noise && a.profile.empty()) {
    throw UsageError("--no-step-noise: only with --profile (the presets' steps have no noise)");
  }
  ResolvedEngine r;
  std::optional<EngineProfile> profile;
  if (a.profile.empty()) {
    resolve_presets(a, r);
  } else {
    resolve_profile(a, r, profile.emplace());
  }
  const Deployment& d = r.deployment;
  SchedulerConfig& s = r.scheduler;
  s.max_model_len = a.max_model_len.value_or(d.model.max_context);
  if (a.max_model_len && d.model.max_context > 0 && *a.max_model_len > d.model.max_context) {
    throw UsageError("--max-model-len " + std::to_string(*a.max_model_len) +
                     " exceeds the model's context length " + std::to_string(d.model.max_context));
  }
  s.long_prefill_token_threshold = a.long_prefill_token_threshold;
  s.enable_chunked_prefill = a.enable_chunked_prefill;
  s.enable_prefix_caching = a.enable_prefix_caching;
  s.policy = a.policy;
  // Imitating vLLM on a GPU preset: its default, on; a profile: what the measured engine did.
  s.async_scheduling = a.async_scheduling.value_or(profile ? profile->async_scheduling : true);
  const int64_t blocks = resolve_num_blocks(a, r, profile);
  s.num_gpu_blocks = static_cast<int32_t>(blocks > INT32_MAX ? INT32_MAX : blocks);
  if (std::string problem = validate(s); !problem.empty()) throw UsageError(problem);
  return r;
}

}  // namespace llm
