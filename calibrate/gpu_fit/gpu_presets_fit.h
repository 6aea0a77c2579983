// The fit behind llmsim's calibrated GPU presets, from ../shared/gpu-truth: every measured card's
// step-model coefficients (card_fit.h) from its profiles and runs, its KV-capacity constants from
// the block counts vLLM logged (kv_memory_fit.h), and the cards without measurements derived from
// a measured one by their datasheets. `llmsim calibrate --runs DIR --out-dir DIR` runs it and
// writes one preset file per card; the shipped files in backends/sim/gpus/ are its output.
// Deterministic: the same folder gives byte-identical files.
// Thread-safety: plain functions; they read files and share nothing.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "backends/sim/gpu_preset.h"

namespace llm {

// Fits every card. Progress and the residual tables go to `log`. `hold_out` (comma-separated
// model names, matched without case inside the samples' model names, e.g. "Qwen2.5-7B") leaves
// those models' profiles and runs out of the fit, for cross-validation: predict their runs with
// presets fitted without them. Throws std::invalid_argument naming the file of what it cannot
// read.
std::vector<GpuPreset> fit_gpu_presets(const std::string& truth_root, std::ostream& log,
                                       const std::string& hold_out = "");

}  // namespace llm
