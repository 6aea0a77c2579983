// The engine arguments llmsim and llmserve share, under vLLM's names (--max-num-seqs, --gpu,
// --model, ...), and the flag parser that fills them. Plain values: what they mean for a simulated
// deployment (presets, the cost model, KV capacity) is resolved in
// backends/sim/resolve_engine_args.h; the CPU and CUDA backends read them for a real model
// (backends/cpu/cpu_engine_config.h, backends/cuda/cuda_engine_config.h). Thread-safety: plain
// values; an EngineFlagParser is used by one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/flag_set.h"
#include "core/scheduler_config.h"

namespace llm {

struct EngineArgs {
  std::string gpu = "H200";            // --gpu: preset name or JSON file
  std::string model = "Llama-3.1-8B";  // --model: preset name, JSON file or HF config.json
  std::string dtype = "auto";          // --dtype: the weights' dtype (vLLM's)
  std::string quantization;            // --quantization: "" (as the checkpoint) or fp8
  bool gpu_or_model_given = false;     // --gpu or --model was on the command line
  // --profile: a calibrated engine (engine_profile.h) in place of --gpu and --model; its facts
  // (KV blocks, block size, dtype, context, batch limits) are the defaults of the flags below.
  std::string profile;
  int64_t tensor_parallel_size = 1;
  std::optional<int32_t> max_num_seqs;            // default depends on the GPU (vLLM's rule)
  std::optional<int32_t> max_num_active_seqs;     // --max-num-active-seqs: default max_num_seqs
  std::optional<int64_t> max_num_batched_tokens;  // likewise
  std::optional<int32_t> block_size;              // default 16
  double gpu_memory_utilization = 0.92;
  bool enable_prefix_caching = true;
  bool enable_chunked_prefill = true;
  // --scheduler-reserve-full-isl / --no-scheduler-reserve-full-isl (vLLM's default: on).
  bool scheduler_reserve_full_isl = true;
  std::optional<std::string> kv_cache_dtype;  // default "auto"
  std::optional<int64_t> max_model_len;       // default: the model's context length
  std::optional<int64_t> num_gpu_blocks_override;
  int64_t long_prefill_token_threshold = 0;
  SchedulingPolicy policy = SchedulingPolicy::kFcfs;
  // --async-scheduling / --no-async-scheduling: schedule step k+1 while step k runs (vLLM's
  // default). Default: on for the presets (as vLLM), the profile's with --profile.
  std::optional<bool> async_scheduling;
  // --no-step-noise: price each step at the profile's modelled time, ignoring its step_time_noise.
  bool no_step_noise = false;
  // --kv-cache-metrics, --kv-cache-metrics-sample F (vLLM's; off, 0.01).
  bool kv_cache_metrics = false;
  double kv_cache_metrics_sample = 0.01;
};

// The engine-argument flags both binaries accept (--max-num-seqs, --gpu, ...), on the shared
// flag layer. Must outlive the FlagSet it was added to.
class EngineFlagParser {
 public:
  // Registers the flags on `flags`; parsing them fills args(). A bad value or a contradiction
  // (--enable-prefix-caching and --no-enable-prefix-caching) throws UsageError naming the flag.
  void add_to(FlagSet& flags);
  const EngineArgs& args() const { return args_; }
  EngineArgs& args() { return args_; }
  // The model as a positional argument (llmserve MODEL, as `vllm serve MODEL`), after parsing:
  // the same as --model; a UsageError when --model named another.
  void set_positional_model(const std::string& model);

 private:
  EngineArgs args_;
  bool prefix_caching_seen_ = false;
  bool async_scheduling_seen_ = false;
  bool chunked_prefill_seen_ = false;
  bool reserve_full_isl_seen_ = false;
  bool model_given_ = false;  // --model
};

// The usage lines of those flags, with the simulated backend's preset names under --gpu and
// --model (backends/sim/presets.h: gpu_preset_names(), model_preset_names()).
std::string engine_flags_usage(const std::vector<std::string>& gpu_presets,
                               const std::vector<std::string>& model_presets);

}  // namespace llm
