#include "backends/sim/engine_args.h"

#include <climits>
#include <cstdio>
#include <stdexcept>

#include "backends/sim/presets.h"
#include "core/flag_values.h"

namespace llm {
namespace {

// Runs fn; an exception from it becomes an invalid_argument prefixed with the flag.
template <typename Fn>
auto for_flag(const char* flag, Fn&& fn) {
  try {
    return fn();
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string(flag) + ": " + e.what());
  }
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

ResolvedEngine resolve_engine_args(const EngineArgs& a) {
  ResolvedEngine r;
  Deployment& d = r.deployment;
  d.gpu = for_flag("--gpu", [&] { return load_gpu_profile(a.gpu); });
  d.model = for_flag("--model", [&] { return load_model_shape(a.model); });
  d.kv_cache_dtype_bytes =
      for_flag("--kv-cache-dtype", [&] { return kv_cache_dtype_bytes(a.kv_cache_dtype); });
  d.tensor_parallel_size = a.tensor_parallel_size;
  if (a.tensor_parallel_size < 1 || d.model.heads % a.tensor_parallel_size != 0) {
    throw std::invalid_argument("--tensor-parallel-size " + std::to_string(a.tensor_parallel_size) +
                                " does not divide the model's " + std::to_string(d.model.heads) +
                                " attention heads");
  }
  if (a.gpu_memory_utilization <= 0 || a.gpu_memory_utilization > 1) {
    throw std::invalid_argument("--gpu-memory-utilization: must be in (0, 1]");
  }

  // vLLM's defaults for the OpenAI server: larger on 70 GiB+ GPUs other than the A100.
  const bool large_gpu =
      d.gpu.memory_bytes >= 70.0 * (1ull << 30) && d.gpu.name.find("A100") == std::string::npos;
  SchedulerConfig& s = r.scheduler;
  s.max_num_seqs = a.max_num_seqs.value_or(large_gpu ? 1024 : 256);
  s.max_num_batched_tokens = a.max_num_batched_tokens.value_or(large_gpu ? 8192 : 2048);
  s.block_size = a.block_size;
  s.max_model_len = a.max_model_len.value_or(d.model.max_context);
  if (a.max_model_len && d.model.max_context > 0 && *a.max_model_len > d.model.max_context) {
    throw std::invalid_argument("--max-model-len " + std::to_string(*a.max_model_len) +
                                " exceeds the model's context length " +
                                std::to_string(d.model.max_context));
  }
  s.long_prefill_token_threshold = a.long_prefill_token_threshold;
  s.enable_chunked_prefill = a.enable_chunked_prefill;
  s.enable_prefix_caching = a.enable_prefix_caching;
  s.policy = a.policy;
  int64_t blocks = a.num_gpu_blocks_override.value_or(
      num_gpu_blocks(d, a.gpu_memory_utilization, a.block_size, s.max_num_batched_tokens));
  if (blocks < 2) {
    throw std::invalid_argument(
        "--gpu-memory-utilization: the model's weights leave no room for a KV cache on --gpu " +
        a.gpu + " at " + number_text(a.gpu_memory_utilization) +
        "; raise --tensor-parallel-size or pick a larger GPU");
  }
  s.num_gpu_blocks = static_cast<int32_t>(blocks > INT32_MAX ? INT32_MAX : blocks);
  if (std::string problem = validate(s); !problem.empty()) throw std::invalid_argument(problem);
  return r;
}

bool EngineFlagParser::parse(const std::string& flag, const std::function<std::string()>& value,
                             const std::function<void()>& no_value) {
  EngineArgs& a = args_;
  auto once = [&flag](bool& seen, const char* pair) {
    if (seen) {
      throw std::invalid_argument(std::string("contradictory flags: ") + pair +
                                  " given twice or both (at " + flag + ")");
    }
    seen = true;
  };
  if (flag == "--max-num-seqs") {
    a.max_num_seqs = static_cast<int32_t>(parse_int_flag(flag, value(), 1));
  } else if (flag == "--max-num-batched-tokens") {
    a.max_num_batched_tokens = parse_int_flag(flag, value(), 1);
  } else if (flag == "--block-size") {
    a.block_size = static_cast<int32_t>(parse_int_flag(flag, value(), 1));
  } else if (flag == "--gpu-memory-utilization") {
    a.gpu_memory_utilization = parse_double_flag(flag, value(), 0);
    if (a.gpu_memory_utilization <= 0 || a.gpu_memory_utilization > 1) {
      throw std::invalid_argument(flag + ": must be in (0, 1]");
    }
  } else if (flag == "--enable-prefix-caching" || flag == "--no-enable-prefix-caching") {
    no_value();
    once(prefix_caching_seen_, "--enable-prefix-caching/--no-enable-prefix-caching");
    a.enable_prefix_caching = flag == "--enable-prefix-caching";
  } else if (flag == "--enable-chunked-prefill" || flag == "--no-enable-chunked-prefill") {
    no_value();
    once(chunked_prefill_seen_, "--enable-chunked-prefill/--no-enable-chunked-prefill");
    a.enable_chunked_prefill = flag == "--enable-chunked-prefill";
  } else if (flag == "--kv-cache-dtype") {
    a.kv_cache_dtype = value();
  } else if (flag == "--max-model-len") {
    a.max_model_len = parse_int_flag(flag, value(), 2);
  } else if (flag == "--num-gpu-blocks-override") {
    a.num_gpu_blocks_override = parse_int_flag(flag, value(), 2);
  } else if (flag == "--long-prefill-token-threshold") {
    a.long_prefill_token_threshold = parse_int_flag(flag, value(), 0);
  } else if (flag == "--scheduling-policy") {
    const std::string policy = value();
    if (policy != "fcfs" && policy != "priority") {
      throw std::invalid_argument(flag + ": expected fcfs or priority, got '" + policy + "'");
    }
    a.policy = policy == "priority" ? SchedulingPolicy::kPriority : SchedulingPolicy::kFcfs;
  } else if (flag == "--tensor-parallel-size") {
    a.tensor_parallel_size = parse_int_flag(flag, value(), 1);
  } else if (flag == "--gpu") {
    a.gpu = value();
  } else if (flag == "--model") {
    a.model = value();
  } else {
    return false;
  }
  return true;
}

std::string engine_flags_usage() {
  return R"(Engine arguments (named as vLLM's):
  --max-num-seqs N                 sequences per step (default 1024 on 80 GB+ GPUs, 256 otherwise)
  --max-num-batched-tokens N       token budget per step (default 8192 on 80 GB+ GPUs, 2048 otherwise)
  --block-size N                   tokens per KV block (16)
  --gpu-memory-utilization F       share of GPU memory for the engine (0.92)
  --enable-prefix-caching | --no-enable-prefix-caching        (on)
  --enable-chunked-prefill | --no-enable-chunked-prefill      (on)
  --kv-cache-dtype auto|bfloat16|float16|fp8|fp8_e4m3|fp8_e5m2  (auto)
  --max-model-len N                context length (default: the model's)
  --num-gpu-blocks-override N      KV blocks instead of the computed capacity
  --long-prefill-token-threshold N cap on one request's prefill chunk (0 = off)
  --scheduling-policy fcfs|priority
  --tensor-parallel-size N         GPUs per engine (1)
  --gpu NAME|FILE.json             GPU preset or profile of the simulated backend (H200)
  --model NAME|FILE.json           model preset or shape of the simulated backend (Llama-3.1-8B)
)";
}

}  // namespace llm
