// Small helpers shared by the benchmark programs in bench/ (not a benchmark itself: only
// *_bench.cpp files are built into llm_bench).
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace llm::bench {

// Seconds of the steady clock since t0.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Peak resident set size of this process in bytes (VmHWM), or -1 when /proc is unavailable.
inline int64_t peak_rss_bytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoll(line.c_str() + 6, nullptr, 10) * 1024;
  }
  return -1;
}

// Resets VmHWM to the current RSS (Linux: writing "5" to clear_refs), so a benchmark's peak is
// not inflated by an earlier benchmark in the same process. False when not permitted.
inline bool reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  if (!out) return false;
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

// Finds a file of the shared reference folder (the one that sits beside the project root as
// ../shared). Tries, in order: $LLM_SHARED_DIR/<rel>, ./../shared/<rel> (from the current working
// directory), and <project root>/../shared/<rel> located from this header's path.
inline std::optional<std::filesystem::path> find_shared_file(const std::string& rel) {
  namespace fs = std::filesystem;
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("LLM_SHARED_DIR"); env && *env) {
    candidates.push_back(fs::path(env) / rel);
  }
  candidates.push_back(fs::path("../shared") / rel);
  // bench/bench_util.h -> bench/ -> project root -> ../shared
  candidates.push_back(fs::path(__FILE__).parent_path() / "../../shared" / rel);
  for (const auto& p : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return p.lexically_normal();
  }
  return std::nullopt;
}

}  // namespace llm::bench
