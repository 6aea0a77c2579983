// The engine arguments llmsim and llmserve share (vLLM's names), and how they resolve into a
// scheduler configuration and a simulated deployment: presets or JSON profiles, vLLM's
// device-dependent defaults, KV capacity from the cost model, and validation.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/sim/cost_model.h"
#include "core/flag_set.h"
#include "core/scheduler_config.h"

namespace llm {

struct EngineArgs {
  std::string gpu = "H200";            // --gpu: preset name or JSON file
  std::string model = "Llama-3.1-8B";  // --model: preset name or JSON file
  int64_t tensor_parallel_size = 1;
  std::optional<int32_t> max_num_seqs;            // default depends on the GPU (vLLM's rule)
  std::optional<int64_t> max_num_batched_tokens;  // likewise
  int32_t block_size = 16;
  double gpu_memory_utilization = 0.92;
  bool enable_prefix_caching = true;
  bool enable_chunked_prefill = true;
  std::string kv_cache_dtype = "auto";
  std::optional<int64_t> max_model_len;  // default: the model's context length
  std::optional<int64_t> num_gpu_blocks_override;
  int64_t long_prefill_token_threshold = 0;
  SchedulingPolicy policy = SchedulingPolicy::kFcfs;
};

struct ResolvedEngine {
  SchedulerConfig scheduler;
  Deployment deployment;
};

// Throws UsageError whose message starts with the offending flag.
ResolvedEngine resolve_engine_args(const EngineArgs& args);

// The engine-argument flags both binaries accept (--max-num-seqs, --gpu, ...), on the shared
// flag layer. Must outlive the FlagSet it was added to.
class EngineFlagParser {
 public:
  // Registers the flags on `flags`; parsing them fills args(). A bad value or a contradiction
  // (--enable-prefix-caching and --no-enable-prefix-caching) throws UsageError naming the flag.
  void add_to(FlagSet& flags);
  const EngineArgs& args() const { return args_; }
  EngineArgs& args() { return args_; }

 private:
  EngineArgs args_;
  bool prefix_caching_seen_ = false;
  bool chunked_prefill_seen_ = false;
};

// The usage lines of those flags.
std::string engine_flags_usage();

}  // namespace llm
