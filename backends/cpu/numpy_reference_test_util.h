// Running the independent NumPy reference (tests/model/numpy_llama.py) from the CPU backend's
// golden tests (backends/cpu/golden_*_test.cpp only): Debian's python3, whether it can import
// numpy, and a command's standard output.
// Thread-safety: none; test code.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace llm::cpu_testing {

inline constexpr const char* kPython = "/usr/bin/python3";

// The command's standard output; throws when it exits non-zero.
inline std::string run_command(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int status = pclose(p);
  if (status != 0)
    throw std::runtime_error("command failed (" + std::to_string(status) + "): " + cmd);
  return out;
}

inline bool numpy_available() {
  return std::system((std::string(kPython) + " -c 'import numpy' >/dev/null 2>&1").c_str()) == 0;
}

}  // namespace llm::cpu_testing
