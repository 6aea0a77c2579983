#include "backends/sim/resolve_engine_args.h"

#include <climits>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "backends/sim/engine_profile.h"
#include "backends/sim/hf_model_config.h"
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

// An engine model: how a simulated engine prices its steps and sizes its KV cache, and the
// defaults it brings for the engine flags. A GPU preset applied to a model shape is one (the
// card's fitted step model over any shape; the KV cache sized from its memory, as vLLM sizes it);
// a --profile is another (the step model fitted to one measured engine; the KV block count it
// recorded). Both resolve the same way from here on.
struct EngineModel {
  Deployment deployment;
  std::string model_name;
  std::string kv_cache_dtype;
  int32_t max_num_seqs = 256;
  int64_t max_num_batched_tokens = 2048;
  int32_t block_size = 16;
  bool async_scheduling = true;
  // A recorded KV capacity (blocks of recorded_block_size); absent: from the GPU's memory.
  std::optional<int64_t> recorded_blocks;
  int64_t recorded_block_size = 16;
  // The API server in front of it: the GPU preset host's, or the profile's api_server block.
  std::optional<ApiServerCosts> api_server;
};

// A GPU preset (or file) and a model preset, schema or config.json, with vLLM's defaults for
// the OpenAI server: larger on 70 GiB+ GPUs other than the A100.
EngineModel gpu_engine_model(const EngineArgs& a) {
  EngineModel e;
  Deployment& d = e.deployment;
  d.gpu = for_flag("--gpu", [&] { return load_gpu_profile(a.gpu); });
  d.model = for_flag("--model", [&] { return load_model_shape(a.model); });
  for_flag(!a.quantization.empty() ? "--quantization" : "--dtype", [&] {
    apply_weight_format(d.model, WeightFormat{a.dtype, a.quantization});
  });
  if (a.tensor_parallel_size < 1 || d.model.heads % a.tensor_parallel_size != 0) {
    throw UsageError("--tensor-parallel-size " + std::to_string(a.tensor_parallel_size) +
                     " does not divide the model's " + std::to_string(d.model.heads) +
                     " attention heads");
  }
  d.tensor_parallel_size = a.tensor_parallel_size;
  const bool large_gpu = d.gpu.datasheet.memory_bytes >= 70.0 * (1ull << 30) &&
                         d.gpu.name.find("A100") == std::string::npos;
  e.max_num_seqs = large_gpu ? 1024 : 256;
  e.max_num_batched_tokens = large_gpu ? 8192 : 2048;
  e.kv_cache_dtype = "auto";
  e.model_name = a.model;
  if (!a.gpu.ends_with(".json")) e.api_server = api_server_preset(d.gpu.name);
  return e;
}

// A calibrated engine (--profile): its step model, and its recorded facts as the defaults.
EngineModel profile_engine_model(const EngineArgs& a) {
  if (a.gpu_or_model_given) {
    throw UsageError(
        "--profile: replaces --gpu and --model (the profile is the engine); drop them");
  }
  if (a.tensor_parallel_size != 1) {
    throw UsageError("--tensor-parallel-size: a profile was measured as it is; it cannot be split");
  }
  if (a.dtype != "auto" || !a.quantization.empty()) {
    throw UsageError(std::string(a.dtype != "auto" ? "--dtype" : "--quantization") +
                     ": a profile was measured with its own weights; drop it");
  }
  const EngineProfile p = for_flag("--profile", [&] { return load_engine_profile(a.profile); });
  EngineModel e;
  Deployment& d = e.deployment;
  d.fitted = p.step;
  if (!a.no_step_noise) d.step_noise = p.step_noise;
  d.gpu.name = "profile";
  d.model.name = p.model.empty() ? a.profile : p.model;
  d.model.vocab = p.vocab_size;
  d.model.max_context = p.max_model_len;
  e.model_name = d.model.name;
  e.kv_cache_dtype = p.kv_cache_dtype;
  e.max_num_seqs = static_cast<int32_t>(p.max_num_seqs.value_or(256));
  e.max_num_batched_tokens = p.max_num_batched_tokens.value_or(2048);
  e.block_size = static_cast<int32_t>(p.block_size);
  e.async_scheduling = p.async_scheduling;
  e.recorded_blocks = p.num_gpu_blocks;
  e.recorded_block_size = p.block_size;
  e.api_server = p.api_server;
  return e;
}

// KV capacity: --num-gpu-blocks-override, the recorded count (the same KV memory in blocks of
// another size, when --block-size differs), or what fits in the GPU's memory.
int64_t resolve_num_blocks(const EngineArgs& a, const EngineModel& e, const Deployment& d,
                           const SchedulerConfig& s) {
  if (e.recorded_blocks) {
    if (a.num_gpu_blocks_override) return *a.num_gpu_blocks_override;
    return *e.recorded_blocks * e.recorded_block_size / s.block_size;
  }
  if (a.num_gpu_blocks_override) {
    // More blocks than the GPU's memory holds beside the weights would not start in vLLM.
    const double block_bytes = static_cast<double>(kv_block_bytes_per_gpu(d, s.block_size));
    const double room = d.gpu.datasheet.memory_bytes - weight_bytes_per_gpu(d);
    if (static_cast<double>(*a.num_gpu_blocks_override) * block_bytes > room) {
      throw UsageError("--num-gpu-blocks-override " + std::to_string(*a.num_gpu_blocks_override) +
                       ": that KV cache (" +
                       number_text(static_cast<double>(*a.num_gpu_blocks_override) * block_bytes /
                                   (1ull << 30)) +
                       " GiB per GPU) does not fit beside the weights in --gpu " + a.gpu + "'s " +
                       number_text(d.gpu.datasheet.memory_bytes / (1ull << 30)) + " GiB");
    }
    return *a.num_gpu_blocks_override;
  }
  const int64_t blocks = num_gpu_blocks(d, a.gpu_memory_utilization, s.block_size,
                                        s.max_num_batched_tokens, s.max_num_seqs);
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
  const EngineModel e = a.profile.empty() ? gpu_engine_model(a) : profile_engine_model(a);
  ResolvedEngine r;
  r.deployment = e.deployment;
  r.model_name = e.model_name;
  r.api_server = e.api_server;
  r.kv_cache_dtype = a.kv_cache_dtype.value_or(e.kv_cache_dtype);
  Deployment& d = r.deployment;
  if (!d.fitted) {
    d.kv_cache_dtype_bytes =
        for_flag("--kv-cache-dtype", [&] { return kv_cache_dtype_bytes(r.kv_cache_dtype); });
  }
  SchedulerConfig& s = r.scheduler;
  s.max_num_seqs = a.max_num_seqs.value_or(e.max_num_seqs);
  s.max_num_batched_tokens = a.max_num_batched_tokens.value_or(e.max_num_batched_tokens);
  s.block_size = a.block_size.value_or(e.block_size);
  s.max_model_len = a.max_model_len.value_or(d.model.max_context);
  if (a.max_model_len && d.model.max_context > 0 && *a.max_model_len > d.model.max_context) {
    throw UsageError("--max-model-len " + std::to_string(*a.max_model_len) +
                     " exceeds the model's context length " + std::to_string(d.model.max_context));
  }
  s.long_prefill_token_threshold = a.long_prefill_token_threshold;
  s.enable_chunked_prefill = a.enable_chunked_prefill;
  s.enable_prefix_caching = a.enable_prefix_caching;
  s.max_num_active_seqs = a.max_num_active_seqs.value_or(0);
  s.scheduler_reserve_full_isl = a.scheduler_reserve_full_isl;
  s.kv_cache_metrics = a.kv_cache_metrics;
  s.kv_cache_metrics_sample = a.kv_cache_metrics_sample;
  s.policy = a.policy;
  // vLLM's default (on) for a GPU preset; a profile: what the measured engine did.
  s.async_scheduling = a.async_scheduling.value_or(e.async_scheduling);
  const int64_t blocks = resolve_num_blocks(a, e, d, s);
  s.num_gpu_blocks = static_cast<int32_t>(blocks > INT32_MAX ? INT32_MAX : blocks);
  if (std::string problem = validate(s); !problem.empty()) throw UsageError(problem);
  return r;
}

}  // namespace llm
