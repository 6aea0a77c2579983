// Named GPU profiles and model shapes for the mock GPU, loading either from a preset name or from
// a JSON file, and small helpers (KV dtype widths, the parameter-count formula).
// Every constant's source is in presets.cpp and docs/cost-model.md.
// Thread-safety: the preset tables are immutable after first use (function-local statics), so
// every function here is safe from any thread; the loaders read files and share nothing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backends/sim/cost_model.h"
#include "backends/sim/gpu_preset.h"
#include "backends/sim/model_shape.h"

namespace llm {

// Looks a preset up by name (for a GPU also its aliases): an exact match first, then a
// case-insensitive one. nullptr if none. The pointers stay valid for the life of the program.
const GpuProfile* find_gpu_preset(std::string_view name);
// The GPU preset with its aliases and provenance.
const GpuPreset* find_gpu_preset_file(std::string_view name);
const ModelShape* find_model_preset(std::string_view name);

// Preset names in table order.
std::vector<std::string> gpu_preset_names();
std::vector<std::string> model_preset_names();

// `name_or_json_path` is a preset name, or a path ending in ".json": for a GPU a preset file
// (gpu_preset.h, "llmsim_gpu": 1) or the older roofline file (datasheet rates, efficiencies and
// overheads, priced by the GPU step model with roofline coefficients); for a model an object of
// the struct's fields under their member names, also a Hugging Face config.json or a folder
// holding one (hf_model_config.h). Throws std::invalid_argument naming the file and the
// field (unknown key, missing required key, wrong type, out-of-range value, unreadable or
// malformed file), or listing the known presets for an unknown name.
// Roofline GPU JSON: every field is required except fp8_flops (default 0).
// Model JSON: every field is required except tied_embeddings (default false),
// weight_bytes_per_param (default 2), params (default params_from_shape()) and the MoE and
// quantized-width fields of model_shape.h (default 0: dense, every matrix at
// weight_bytes_per_param).
GpuProfile load_gpu_profile(const std::string& name_or_json_path);
ModelShape load_model_shape(const std::string& name_or_json_path);

// A GPU priced as a roofline by the GPU step model: weights and KV streamed at the datasheet's
// bandwidth x memory_efficiency, GEMMs and attention at its BF16 peak x compute_efficiency, no
// per-kernel or per-layer cost, elementwise kernels free, each GEMM the sharp maximum of its
// memory and compute time; the H100-SXM preset's KV-capacity constants. The older GPU JSON
// format loads as this, and benchmarks price a measured "device" with it.
GpuProfile roofline_gpu(const std::string& name, const GpuDatasheet& datasheet,
                        double compute_efficiency, double memory_efficiency, double step_ns,
                        double per_sequence_ns, double allreduce_ns);

// Bytes per KV element for a --kv-cache-dtype value: "auto", "bfloat16", "float16" -> 2;
// "fp8", "fp8_e4m3", "fp8_e5m2" -> 1. Throws std::invalid_argument listing them otherwise.
int64_t kv_cache_dtype_bytes(std::string_view dtype);

}  // namespace llm
