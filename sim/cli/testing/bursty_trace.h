// A bursty trace for the llmsim command tests (the stretch warnings of sweep and capacity): 40
// short requests arriving four at a time, every 0.5 s, written as a JSON trace under the test's
// temporary folder. Header-only (sim/cli/testing/ is not built into a library).
// Thread-safety: writes one file; call it from one thread per name.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace llm::testing {

inline std::string bursty_trace(const std::string& name) {
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / (name + ".json");
  std::ofstream out(path);
  out << "{\"metadata\": {\"name\": \"bursty\", \"time_unit\": \"s\"}, \"requests\": [";
  for (int i = 0; i < 40; ++i) {
    out << (i ? ", " : "") << "{\"id\": \"r" << i << "\", \"arrival\": " << (i / 4) * 0.5
        << ", \"prompt_len\": 32, \"output_len\": 8}";
  }
  out << "]}\n";
  return path.string();
}

}  // namespace llm::testing
