// The CUDA module loader (cuda_module_loader.h) and the CUDA entry points of a program built with
// CUDA (cuda_backend.h): each asks the module, loaded on first use.
#include "backends/cuda/loader/cuda_module_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "core/build_info.h"

namespace llm {

std::vector<std::string> cuda_module_candidates(const std::string& program_dir,
                                                const std::string& env_path) {
  if (!env_path.empty()) return {env_path};
  const std::filesystem::path dir(program_dir);
  return {(dir / kCudaModuleFile).string(), (dir / "lib" / kCudaModuleFile).string()};
}

CudaModuleLoad load_cuda_module_from(const std::string& path) {
  CudaModuleLoad load;
  // RTLD_LOCAL: the module's copies of our libraries stay its own.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    load.problem = "cannot load the CUDA backend module " + path + ": " +
                   (why != nullptr ? why : "unknown dlopen error");
    return load;
  }
  auto* entry = reinterpret_cast<const CudaModuleApi* (*)()>(dlsym(handle, kCudaModuleSymbol));
  if (entry == nullptr) {
    dlclose(handle);
    load.problem =
        path + " is not a CUDA backend module (it has no " + std::string(kCudaModuleSymbol) + ")";
    return load;
  }
  const CudaModuleApi* api = entry();
  const std::string ours = version_string();
  if (api == nullptr || api->abi != kCudaModuleAbi || api->layout != cuda_module_layout() ||
      api->build == nullptr || ours != api->build || api->probe == nullptr ||
      api->make == nullptr) {
    load.problem = "the CUDA backend module " + path + " is from another build (" +
                   (api != nullptr && api->build != nullptr ? api->build : "?") + ", this is " +
                   ours + "): rebuild it with this program";
    return load;  // not closed: its static objects may already be initialised
  }
  load.api = api;
  return load;
}

CudaModuleLoad load_cuda_module_from_candidates(const std::vector<std::string>& candidates,
                                                bool from_env) {
  std::string looked;
  for (const std::string& path : candidates) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) return load_cuda_module_from(path);
    looked += (looked.empty() ? "" : ", ") + path;
  }
  CudaModuleLoad load;
  load.problem =
      from_env ? "the CUDA backend module $LLM_CUDA_BACKEND=" + looked + " does not exist"
               : std::string("the CUDA backend module ") + kCudaModuleFile +
                     " was not found (looked at " + looked + "; set LLM_CUDA_BACKEND to its path)";
  return load;
}

const CudaModuleLoad& load_cuda_module() {
  static const CudaModuleLoad load = [] {
    const char* env = std::getenv("LLM_CUDA_BACKEND");
    const std::string env_path = env != nullptr ? env : "";
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::string dir = ec ? std::string(".") : exe.parent_path().string();
    return load_cuda_module_from_candidates(cuda_module_candidates(dir, env_path),
                                            !env_path.empty());
  }();
  return load;
}

CudaDeviceInfo probe_cuda_device() {
  const CudaModuleLoad& module = load_cuda_module();
  if (module.api == nullptr) {
    CudaDeviceInfo info;
    info.problem = module.problem;
    return info;
  }
  return module.api->probe();
}

std::unique_ptr<Backend> make_cuda_backend(std::shared_ptr<const ModelWeights> weights,
                                           const CudaBackendOptions& options) {
  const CudaModuleLoad& module = load_cuda_module();
  if (module.api == nullptr) throw std::runtime_error(module.problem);
  return module.api->make(std::move(weights), options);
}

}  // namespace llm
