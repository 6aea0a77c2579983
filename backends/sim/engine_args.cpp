#include "backends/sim/engine_args.h"

#include <climits>
#include <cstdio>
#include <stdexcept>
#include <type_traits>

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

// The simulated deployment of --gpu and --model (the roofline), and vLLM's defaults for it.
void resolve_presets(const EngineArgs& a, ResolvedEngine& r) {
  Deployment& d = r.deployment;
  d.gpu = for_flag("--gpu", [&] { return load_gpu_profile(a.gpu); });
  d.model = for_flag("--model", [&] { return load_model_shape(a.model); });
  for_flag(!a.quantization.empty() ? "--quantization" : "--dtype", [&] {
    apply_weight_format(d.model, WeightFormat{a.dtype, a.quantization});
  });
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
      d.gpu.datasheet.memory_bytes >= 70.0 * (1ull << 30) && d.gpu.name.find("A100") == std::string::npos;
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
  if (a.dtype != "auto" || !a.quantization.empty()) {
    throw UsageError(std::string(a.dtype != "auto" ? "--dtype" : "--quantization") +
                     ": a profile was measured with its own weights; drop it");
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

void EngineFlagParser::add_to(FlagSet& flags) {
  EngineArgs& a = args_;
  // Each pair of a switch and its negation may be given once.
  auto once = [](bool& seen, const char* pair, const std::string& flag) {
    if (seen) {
      throw UsageError(std::string("contradictory flags: ") + pair + " given twice or both (at " +
                       flag + ")");
    }
    seen = true;
  };
  auto optional_int = [](auto& out, int64_t min_value) {
    return [&out, min_value](const std::string& flag, const std::string& v) {
      out = static_cast<typename std::decay_t<decltype(out)>::value_type>(
          parse_int_flag(flag, v, min_value));
    };
  };
  flags.value({"--max-num-seqs"}, optional_int(a.max_num_seqs, 1))
      .value({"--max-num-batched-tokens"}, optional_int(a.max_num_batched_tokens, 1))
      .value({"--block-size"}, optional_int(a.block_size, 1))
      .value({"--gpu-memory-utilization"},
             [&a](const std::string& flag, const std::string& v) {
               a.gpu_memory_utilization = parse_double_flag(flag, v, 0);
               if (a.gpu_memory_utilization <= 0 || a.gpu_memory_utilization > 1) {
                 throw UsageError(flag + ": must be in (0, 1]");
               }
             })
      .toggle({"--enable-prefix-caching", "--no-enable-prefix-caching"},
              [this, &a, once](const std::string& flag) {
                once(prefix_caching_seen_, "--enable-prefix-caching/--no-enable-prefix-caching",
                     flag);
                a.enable_prefix_caching = flag == "--enable-prefix-caching";
              })
      .toggle({"--async-scheduling", "--no-async-scheduling"},
              [this, &a, once](const std::string& flag) {
                once(async_scheduling_seen_, "--async-scheduling/--no-async-scheduling", flag);
                a.async_scheduling = flag == "--async-scheduling";
              })
      .toggle({"--enable-chunked-prefill", "--no-enable-chunked-prefill"},
              [this, &a, once](const std::string& flag) {
                once(chunked_prefill_seen_, "--enable-chunked-prefill/--no-enable-chunked-prefill",
                     flag);
                a.enable_chunked_prefill = flag == "--enable-chunked-prefill";
              })
      .value({"--kv-cache-dtype"},
             [&a](const std::string&, const std::string& v) { a.kv_cache_dtype = v; })
      .value({"--max-model-len"}, optional_int(a.max_model_len, 2))
      .value({"--num-gpu-blocks-override"}, optional_int(a.num_gpu_blocks_override, 2))
      .integer({"--long-prefill-token-threshold"}, a.long_prefill_token_threshold, 0)
      .value({"--scheduling-policy"},
             [&a](const std::string& flag, const std::string& v) {
               a.policy = parse_choice_flag(flag, v, {"fcfs", "priority"}) == "priority"
                              ? SchedulingPolicy::kPriority
                              : SchedulingPolicy::kFcfs;
             })
      .integer({"--tensor-parallel-size"}, a.tensor_parallel_size, 1)
      .value({"--gpu", "--model"},
             [&a](const std::string& flag, const std::string& v) {
               (flag == "--gpu" ? a.gpu : a.model) = v;
               a.gpu_or_model_given = true;
             })
      .nonempty({"--dtype"}, a.dtype)
      .nonempty({"--quantization"}, a.quantization)
      .nonempty({"--profile"}, a.profile)
      .boolean({"--no-step-noise"}, a.no_step_noise);
}

std::string engine_flags_usage() {
  return R"(Engine arguments (named as vLLM's):
  --max-num-seqs N                 sequences per step (default 1024 on 80 GB+ GPUs, 256 otherwise)
  --max-num-batched-tokens N       token budget per step (default 8192 on 80 GB+ GPUs, 2048 otherwise)
  --block-size N                   tokens per KV block (16)
  --gpu-memory-utilization F       share of GPU memory for the engine (0.92)
  --enable-prefix-caching | --no-enable-prefix-caching        (on)
  --enable-chunked-prefill | --no-enable-chunked-prefill      (on)
  --async-scheduling | --no-async-scheduling  schedule step k+1 while step k runs, as vLLM does
                                   (default on; with --profile, what the measured engine did)
  --kv-cache-dtype auto|bfloat16|float16|fp8|fp8_e4m3|fp8_e5m2  (auto)
  --max-model-len N                context length (default: the model's)
  --num-gpu-blocks-override N      KV blocks instead of the computed capacity
  --long-prefill-token-threshold N cap on one request's prefill chunk (0 = off)
  --scheduling-policy fcfs|priority
  --tensor-parallel-size N         GPUs per engine (1)
  --gpu NAME|FILE.json             GPU preset or profile of the simulated backend (H200)
  --model NAME|FILE.json|DIR       model preset, shape, or Hugging Face config.json (or a folder
                                   holding one) of the simulated backend (Llama-3.1-8B)
  --dtype auto|bfloat16|float16|float32  the weights' dtype (auto: the checkpoint's, 16-bit)
  --quantization fp8               FP8 weights for the attention and MLP matrices
  --profile FILE.json              a calibrated engine (llmsim calibrate) instead of --gpu and
                                   --model; its KV blocks, block size and limits are the defaults
  --no-step-noise                  with --profile: every step at the model's time, without the
                                   measured scatter the profile records (step_time_noise)
)";
}

}  // namespace llm
