// An engine profile, written by `llmsim calibrate` and read by `llmsim replay --profile` and
// `llmserve --backend sim --profile`: the step-time model fitted to one real engine's measured
// steps, and the facts of that engine that change timing (whether it schedules asynchronously, its
// KV-cache block count, block size and dtype, context length, vocabulary, and the batch limits it
// was measured with). A replay with the profile follows those facts unless a flag overrides one.
// The file format (JSON, "llmsim_profile": 1) is in docs/cost-model.md.
// Thread-safety: plain values and pure functions; the loader reads its file and shares nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backends/sim/api_server_costs.h"
#include "backends/sim/step_model.h"
#include "backends/sim/step_noise.h"

namespace llm {

struct ProfileFit {
  int64_t steps = 0;            // measured steps the model was fitted to
  double median_abs_error = 0;  // |predicted - measured| / measured, over those steps
  double p90_abs_error = 0;
  double max_abs_error = 0;
};

struct EngineProfile {
  std::string source;  // how it was measured ("cpu backend, model.gguf, 2 threads", a URL)
  std::string model;   // the model's name or path
  FittedStepModel step;
  // The measured steps' scatter around `step` (absent in profiles written before it was kept, or
  // with calibrate --no-step-noise): a replay draws each step's time from it.
  std::optional<StepTimeNoise> step_noise;
  bool async_scheduling = false;
  int64_t num_gpu_blocks = 0;
  int64_t block_size = 16;
  std::string kv_cache_dtype = "auto";
  int64_t max_model_len = 0;
  int64_t vocab_size = 0;
  std::optional<int64_t> max_num_seqs;  // the limits it was measured with
  std::optional<int64_t> max_num_batched_tokens;
  ProfileFit fit;
  // The API server's costs as calibrate measured them (absent: not measured; a replay then
  // models no API server).
  std::optional<ApiServerCosts> api_server;
};

// Reads and validates a profile: every required field present with its type, no unknown field,
// counts positive, and a step model that prices every step above 0 ns. Throws
// std::invalid_argument "FILE: field 'KEY': what is wrong".
EngineProfile load_engine_profile(const std::string& path);

// The profile as the JSON text load_engine_profile reads (indented, newline-terminated).
std::string engine_profile_json(const EngineProfile& profile);

}  // namespace llm
