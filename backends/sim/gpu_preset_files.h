// The GPU presets' data files (backends/sim/gpus/*.json), compiled into the binary so that llmsim
// and llmserve find them from any directory. The build generates the definition from the files
// (CMakeLists.txt, "GPU preset data files"); `llmsim calibrate --runs` writes the files.
// Thread-safety: immutable data.
#pragma once

#include <vector>

namespace llm {

struct EmbeddedFile {
  const char* name;  // file name, e.g. "H100-SXM.json"
  const char* text;  // its contents
};

// The files in name order.
const std::vector<EmbeddedFile>& gpu_preset_files();

}  // namespace llm
