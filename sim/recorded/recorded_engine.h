// The engine of a recorded run as llmsim's engine arguments: the card as a GPU preset, the model
// as its config.json among the published model configs, and vLLM's defaults for what the run does
// not state (gpu_memory_utilization 0.9, prefix caching and chunked prefill on, async scheduling
// on: vLLM's defaults in 0.15 and 0.19).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim/resolve_engine_args.h"
#include "sim/recorded/recorded_options.h"

namespace llm {

// What a recorded run says of its server.
struct RecordedServer {
  std::string label;  // the file it came from, for messages
  std::string model;  // the model id ("meta-llama/Llama-2-7b-hf")
  std::string card;   // as the run names it ("H100")
  int64_t tensor_parallel_size = 1;
  std::optional<int64_t> max_num_seqs, max_num_batched_tokens, max_model_len;
  std::optional<int64_t> num_gpu_blocks;  // as vLLM logged it
  std::optional<double> gpu_memory_utilization;
};

// llmsim's GPU preset for a card as recorded runs name it ("H100" -> "H100-SXM",
// "RTXPRO6000" -> "RTX-PRO-6000"); other names unchanged.
std::string gpu_preset_for(const std::string& card);

// The engine arguments; `notes` gains what was assumed. `run_path` is where to look for the model
// configs when options.model_configs is empty.
EngineArgs recorded_engine_args(const RecordedServer& server, const std::string& run_path,
                                const RecordedOptions& options, std::vector<std::string>& notes);

}  // namespace llm
