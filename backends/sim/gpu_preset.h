// A GPU as the mock GPU prices it: its datasheet, the fitted coefficients of the GPU step model
// (gpu_step_model.h) and of its KV-capacity model, and, in a preset's data file, where they come
// from (the runs and profiles, the fit, its residuals; or how a card without measurements was
// derived). The presets' files live in backends/sim/gpus/*.json, are written by
// `llmsim calibrate --runs` and are compiled into the binary (gpu_preset_files.h).
// File format ("llmsim_gpu": 1) in docs/cost-model.md.
// Thread-safety: plain values and pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/sim/gpu_step_model.h"

namespace llm {

struct GpuDatasheet {
  double memory_bytes = 0;      // driver-reported total memory of one GPU
  double hbm_bytes_per_s = 0;   // memory bandwidth
  double bf16_flops = 0;        // dense BF16 tensor peak (FP32 accumulate)
  double fp8_flops = 0;         // dense FP8 tensor peak (0: none)
  double link_bytes_per_s = 0;  // GPU-to-GPU, one way, per GPU
  std::string link;             // "NVLink 4", "PCIe 5", ...
};

// The memory vLLM keeps from the KV cache on each GPU besides the weights (vLLM's profiling
// run): reserved_bytes (CUDA context, cuBLAS workspaces, the driver's share) +
// tensor_parallel_bytes when tp > 1 (NCCL and custom all-reduce buffers) + sampler_bytes_per_logit
// x max_num_seqs x vocab (the sampler's dummy run over max_num_seqs rows of logits) +
// activation_bytes_per_hidden x max_num_batched_tokens x hidden (the profiling step's activations).
struct GpuMemoryCoefficients {
  double reserved_bytes = 0;
  double tensor_parallel_bytes = 0;
  double sampler_bytes_per_logit = 0;
  double activation_bytes_per_hidden = 0;
};

struct GpuProfile {
  std::string name;
  GpuDatasheet datasheet;
  GpuStepCoefficients step;
  GpuMemoryCoefficients memory;
};

struct PresetResidual {
  std::string stage;         // what was fitted ("gemm", "runs", "kv blocks", ...)
  std::string coefficients;  // the coefficients it set ("" for a check)
  int64_t samples = 0;
  int64_t trimmed = 0;
  double median_abs_error = 0;
  double p90_abs_error = 0;
  double max_abs_error = 0;
  double median_error = 0;  // signed: + predicts high
};

struct GpuProvenance {
  std::string derivation;            // "fitted to ..." or "derived from H100-SXM by ..."
  std::string confidence;            // how sure, in words
  std::vector<std::string> sources;  // the runs and profiles (paths under gpu-truth)
  std::string fit;                   // the command and method
  std::vector<PresetResidual> residuals;
};

struct GpuPreset {
  GpuProfile profile;
  std::vector<std::string> aliases;
  GpuProvenance provenance;
};

// Reads a preset file's object. Throws std::invalid_argument "FILE: field 'KEY': what" for a
// missing, unknown or out-of-range field.
GpuPreset gpu_preset_from_json(const nlohmann::json& obj, const std::string& file);
// The preset as the file the fit writes (indented, fixed key order, newline-terminated).
std::string gpu_preset_json(const GpuPreset& preset);

// "" when the memory coefficients are usable (finite, >= 0); else "FIELD: what is wrong".
std::string gpu_memory_problem(const GpuMemoryCoefficients& m);

}  // namespace llm
