#include "core/build_info.h"

// Written by CMake at configure time (CMakeLists.txt): LLM_VERSION, LLM_COMMIT, LLM_CUDA_BUILT_IN.
#include "llm_build_info_values.h"

namespace llm {

const BuildInfo& build_info() {
  static const BuildInfo info{LLM_VERSION, LLM_COMMIT, LLM_CUDA_BUILT_IN != 0};
  return info;
}

std::string version_string() {
  const BuildInfo& b = build_info();
  const std::string commit = b.commit == "unknown" ? b.commit : "g" + b.commit;
  return b.version + "+" + commit + (b.cuda ? ".cuda" : ".nocuda");
}

std::string version_line(std::string_view program) {
  const BuildInfo& b = build_info();
  return std::string(program) + " " + version_string() + " (commit " + b.commit + ", " +
         (b.cuda ? "CUDA built in" : "without CUDA") + ")";
}

}  // namespace llm
