// What this binary is: the project's version, the git commit the build was configured from, and
// whether the CUDA backend was built in. One string for all of it, which --version prints on
// every program and GET /version returns, so that a log line, a bug report and a running server
// can be matched to one build.
// Thread-safety: constants.
#pragma once

#include <string>
#include <string_view>

namespace llm {

struct BuildInfo {
  std::string version;  // the project's version (CMakeLists.txt's project())
  std::string commit;   // git's short commit hash at configure time, or "unknown" without git
  bool cuda = false;    // the CUDA backend (backends/cuda/device) is built in
};

const BuildInfo& build_info();

// VERSION+gCOMMIT.cuda or VERSION+gCOMMIT.nocuda (VERSION+unknown.cuda without git): a PEP 440
// version with a local part, as vLLM's own builds name themselves (0.10.1+g5a7b3c2.cu128), so
// that clients parsing GET /version's {"version": ...} as a version still can.
std::string version_string();

// --version's line: "PROGRAM VERSION_STRING (commit C, CUDA built in|without CUDA)".
std::string version_line(std::string_view program);

}  // namespace llm
