// The CUDA module loader: where it looks, and that each way of failing is one line naming the
// file and the reason (the programs print it after "--backend cuda: " and exit 2).
#include "backends/cuda/loader/cuda_module_loader.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace llm {
namespace {

TEST(CudaModuleLoader, CandidatesAreTheEnvironmentsPathAloneElseBesideTheProgramThenItsLib) {
  struct Case {
    std::string program_dir, env;
    std::vector<std::string> want;
  };
  const std::vector<Case> cases = {
      {"/opt/llm/bin",
       "",
       {"/opt/llm/bin/libllm_cuda_backend.so", "/opt/llm/bin/lib/libllm_cuda_backend.so"}},
      {"/opt/llm/bin", "/x/my.so", {"/x/my.so"}},
      {".", "", {"./libllm_cuda_backend.so", "./lib/libllm_cuda_backend.so"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(cuda_module_candidates(c.program_dir, c.env), c.want)
        << c.program_dir << " " << c.env;
  }
}

TEST(CudaModuleLoader, NoCandidateExistingNamesEveryPlaceLookedAt) {
  const CudaModuleLoad load =
      load_cuda_module_from_candidates({"/nonexistent/a.so", "/nonexistent/lib/a.so"}, false);
  EXPECT_EQ(load.api, nullptr);
  EXPECT_EQ(load.problem,
            "the CUDA backend module libllm_cuda_backend.so was not found (looked at "
            "/nonexistent/a.so, /nonexistent/lib/a.so; set LLM_CUDA_BACKEND to its path)");
}

TEST(CudaModuleLoader, AMissingPathFromTheEnvironmentIsNamedAsSuch) {
  const CudaModuleLoad load = load_cuda_module_from_candidates({"/nonexistent/m.so"}, true);
  EXPECT_EQ(load.api, nullptr);
  EXPECT_EQ(load.problem,
            "the CUDA backend module $LLM_CUDA_BACKEND=/nonexistent/m.so does not exist");
}

TEST(CudaModuleLoader, AFileThatIsNoSharedObjectGivesDlopensReason) {
  const std::string path = testing::TempDir() + "cuda_module_loader_not_elf.so";
  std::ofstream(path) << "not a shared object\n";
  const CudaModuleLoad load = load_cuda_module_from_candidates({path}, false);
  EXPECT_EQ(load.api, nullptr);
  EXPECT_EQ(load.problem.rfind("cannot load the CUDA backend module " + path + ": ", 0), 0u)
      << load.problem;
  EXPECT_EQ(load.problem.find('\n'), std::string::npos);
  std::filesystem::remove(path);
}

TEST(CudaModuleLoader, ASharedObjectWithoutTheEntryPointIsNotAModule) {
  // libstdc++, which this test loads anyway: a real shared object without llm_cuda_module_api.
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&std::terminate), &info), 0);
  ASSERT_NE(info.dli_fname, nullptr);
  const std::string path = info.dli_fname;
  const CudaModuleLoad load = load_cuda_module_from(path);
  EXPECT_EQ(load.api, nullptr);
  EXPECT_EQ(load.problem, path + " is not a CUDA backend module (it has no llm_cuda_module_api)");
}

}  // namespace
}  // namespace llm
