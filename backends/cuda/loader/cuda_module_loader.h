// Finds and loads the CUDA backend module (libllm_cuda_backend.so, backends/cuda/module) with
// dlopen(), once, when --backend cuda first asks for it; the program itself links no CUDA
// library. Where it looks, in order: $LLM_CUDA_BACKEND (a path; when set, only there), then
// beside the running program, then in a lib/ folder beside it (ci/gpu-check.sh's gpu-carry/).
// Every failure is one line naming the file and why (not found, dlopen's error such as a missing
// libcublas.so.13, not a module, another build), which probe_cuda_device reports as its problem.
// Thread-safety: load_cuda_module() may be called from any thread (a function-local static).
#pragma once

#include <string>
#include <vector>

#include "backends/cuda/module/cuda_module_api.h"

namespace llm {

struct CudaModuleLoad {
  const CudaModuleApi* api = nullptr;  // null when it could not be loaded
  std::string problem;                 // why, in one line, when api is null
};

// The paths to try: `env_path` alone when not empty, else beside `program_dir` and in its lib/.
std::vector<std::string> cuda_module_candidates(const std::string& program_dir,
                                                const std::string& env_path);

// Loads the module at `path` (dlopen, the entry symbol, the build check); never throws.
CudaModuleLoad load_cuda_module_from(const std::string& path);

// Tries the candidates in order: the first that exists is loaded (a later one is not tried when
// it fails); none existing is reported naming every place looked at.
CudaModuleLoad load_cuda_module_from_candidates(const std::vector<std::string>& candidates,
                                                bool from_env);

// The process's module: loaded on the first call from $LLM_CUDA_BACKEND or beside
// /proc/self/exe, then the same answer on every call.
const CudaModuleLoad& load_cuda_module();

}  // namespace llm
