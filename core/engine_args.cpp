#include "core/engine_args.h"

#include <type_traits>
#include <vector>

#include "core/flag_values.h"

namespace llm {

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
      .value({"--max-num-active-seqs"}, optional_int(a.max_num_active_seqs, 1))
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
      .toggle({"--scheduler-reserve-full-isl", "--no-scheduler-reserve-full-isl"},
              [this, &a, once](const std::string& flag) {
                once(reserve_full_isl_seen_,
                     "--scheduler-reserve-full-isl/--no-scheduler-reserve-full-isl", flag);
                a.scheduler_reserve_full_isl = flag == "--scheduler-reserve-full-isl";
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
             [this, &a](const std::string& flag, const std::string& v) {
               (flag == "--gpu" ? a.gpu : a.model) = v;
               if (flag == "--model") model_given_ = true;
               a.gpu_or_model_given = true;
             })
      .nonempty({"--dtype"}, a.dtype)
      .nonempty({"--quantization"}, a.quantization)
      .nonempty({"--profile"}, a.profile)
      .boolean({"--no-step-noise"}, a.no_step_noise)
      .boolean({"--kv-cache-metrics"}, a.kv_cache_metrics)
      .value({"--kv-cache-metrics-sample"}, [&a](const std::string& flag, const std::string& v) {
        a.kv_cache_metrics_sample = parse_double_flag(flag, v, 0);
        if (a.kv_cache_metrics_sample > 1) throw UsageError(flag + ": must be in [0, 1]");
      });
}

void EngineFlagParser::set_positional_model(const std::string& model) {
  if (model_given_ && args_.model != model) {
    throw UsageError("MODEL '" + model + "' and --model '" + args_.model +
                     "' differ: give the model once");
  }
  args_.model = model;
  model_given_ = true;
  args_.gpu_or_model_given = true;
}

namespace {

// "presets: A, B, C" wrapped under a flag's description (column kUsageColumn, 100 wide).
std::string preset_lines(const std::vector<std::string>& names) {
  constexpr size_t kUsageColumn = 35, kWidth = 100;
  const std::string indent(kUsageColumn, ' ');
  std::string out = indent + "presets:";
  size_t line_length = out.size();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string item = names[i] + (i + 1 < names.size() ? "," : "");
    if (line_length + 1 + item.size() > kWidth) {
      out += "\n" + indent + item;
      line_length = indent.size() + item.size();
    } else {
      out += " " + item;
      line_length += 1 + item.size();
    }
  }
  return out + "\n";
}

}  // namespace

std::string engine_flags_usage(const std::vector<std::string>& gpu_presets,
                               const std::vector<std::string>& model_presets) {
  return R"(Engine arguments (named as vLLM's):
  --max-num-seqs N                 sequences per step (default 1024 on 80 GB+ GPUs, 256 otherwise)
  --max-num-active-seqs N          admit from the waiting queue only below N running requests
                                   (at most --max-num-seqs; default: --max-num-seqs)
  --max-num-batched-tokens N       token budget per step (default 8192 on 80 GB+ GPUs, 2048 otherwise)
  --block-size N                   tokens per KV block (16)
  --gpu-memory-utilization F       share of GPU memory for the engine (0.92)
  --enable-prefix-caching | --no-enable-prefix-caching        (on)
  --enable-chunked-prefill | --no-enable-chunked-prefill      (on)
  --scheduler-reserve-full-isl | --no-scheduler-reserve-full-isl  admit a request only if its whole
                                   prompt's KV blocks are free, not just its first chunk's (on)
  --async-scheduling | --no-async-scheduling  schedule step k+1 while step k runs, as vLLM does
                                   (default on; with --profile, what the measured engine did)
  --kv-cache-dtype auto|bfloat16|float16|fp8|fp8_e4m3|fp8_e5m2  (auto)
  --max-model-len N                context length (default: the model's)
  --num-gpu-blocks-override N      KV blocks instead of the computed capacity
  --long-prefill-token-threshold N cap on one request's prefill chunk (0 = off)
  --scheduling-policy fcfs|priority
  --tensor-parallel-size N         GPUs per engine (1)
  --gpu NAME|FILE.json             GPU preset or profile of the simulated backend (H200)
)" + preset_lines(gpu_presets) +
         R"(  --model NAME|FILE.json|DIR       model preset, shape, or Hugging Face config.json (or a folder
                                   holding one) of the simulated backend (Llama-3.1-8B)
)" + preset_lines(model_presets) +
         R"(  --dtype auto|bfloat16|float16|float32  the weights' dtype (auto: the checkpoint's, 16-bit)
  --quantization fp8               FP8 weights for the attention and MLP matrices
  --profile FILE.json              a calibrated engine (llmsim calibrate) instead of --gpu and
                                   --model; its KV blocks, block size and limits are the defaults
  --no-step-noise                  with --profile: every step at the model's time, without the
                                   measured scatter the profile records (step_time_noise)
  --kv-cache-metrics               sample KV block residency: vllm:kv_block_lifetime_seconds,
                                   _idle_before_evict_seconds, _reuse_gap_seconds (off)
  --kv-cache-metrics-sample F      share of block allocations sampled, in [0, 1] (0.01)
)";
}

}  // namespace llm
