#include "sim/recorded/recorded_engine.h"

#include <algorithm>
#include <cctype>

#include "backends/sim/presets.h"
#include "sim/recorded/recorded_files.h"
#include "sim/trace/trace.h"

namespace llm {
namespace {

std::string squeezed_upper(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c)) out += static_cast<char>(std::toupper(c));
  }
  return out;
}

}  // namespace

std::string gpu_preset_for(const std::string& card) {
  const std::string key = squeezed_upper(card);
  struct Alias {
    const char* key;
    const char* preset;
  };
  static constexpr Alias kAliases[] = {
      {"H100", "H100-SXM"},      {"H10080GB", "H100-SXM"},       {"H100SXM", "H100-SXM"},
      {"A100", "A100-80GB"},     {"A10080GB", "A100-80GB"},      {"L40S", "L40S"},
      {"H200", "H200"},          {"RTXPRO6000", "RTX-PRO-6000"}, {"RTX4090", "RTX-4090"},
      {"A10040GB", "A100-40GB"},
  };
  for (const Alias& a : kAliases) {
    if (key == a.key) return a.preset;
  }
  return card;
}

EngineArgs recorded_engine_args(const RecordedServer& s, const std::string& run_path,
                                const RecordedOptions& options, std::vector<std::string>& notes) {
  EngineArgs a;
  a.gpu_or_model_given = true;
  a.gpu = options.gpu.empty() ? gpu_preset_for(s.card) : options.gpu;
  if (!options.model.empty()) {
    a.model = options.model;
  } else {
    const std::string configs = locate_model_configs(options.model_configs, run_path);
    const std::optional<std::string> config = find_model_config(configs, s.model);
    if (!config) {
      throw TraceError(
          s.label + ": model: no config.json for '" + s.model + "' in " +
          (configs.empty() ? std::string("any model-configs folder near the run") : configs) +
          " (give --model-configs DIR or --model)");
    }
    a.model = *config;
  }
  a.tensor_parallel_size = s.tensor_parallel_size;
  if (s.max_num_seqs) a.max_num_seqs = static_cast<int32_t>(*s.max_num_seqs);
  a.max_num_batched_tokens = s.max_num_batched_tokens;
  a.max_model_len = s.max_model_len;
  a.num_gpu_blocks_override = s.num_gpu_blocks;
  if (!a.max_model_len && s.num_gpu_blocks) {
    // vLLM refuses to start when the KV cache cannot hold one max_model_len sequence, so a run
    // with a logged block count but no recorded context length ran with one that fits.
    const int64_t fits = (*s.num_gpu_blocks - 1) * 16;  // one block is the null block
    try {
      const ModelShape shape = load_model_shape(a.model);
      if (shape.max_context > fits) {
        a.max_model_len = fits;
        notes.push_back("max_model_len not recorded: " + std::to_string(fits) +
                        ", what the logged KV blocks hold (the model's is " +
                        std::to_string(shape.max_context) + ")");
      }
    } catch (const std::exception&) {
      // An unreadable model is reported when the run is configured.
    }
  }
  a.gpu_memory_utilization = s.gpu_memory_utilization.value_or(0.9);
  if (!s.gpu_memory_utilization) notes.push_back("gpu_memory_utilization 0.9 (vLLM's default)");
  a.async_scheduling = true;
  return a;
}

}  // namespace llm
