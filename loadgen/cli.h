// llmbench's command line: flags to a BenchConfig. Bad flags throw UsageError naming the flag
// (llmbench exits with code 2).
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "core/flag_values.h"
#include "loadgen/bench.h"

namespace llm::loadgen {

using llm::UsageError;

struct CliOptions {
  std::string trace_path;
  BenchConfig config;
  std::string result_json;  // empty: none
  bool help = false;
  bool quiet = false;
};

// Parses the arguments after the program name.
CliOptions parse_args(const std::vector<std::string>& args);
std::string usage();

// Splits "http://host[:port][/path]" into config.host, port and base_path. Throws UsageError.
void parse_base_url(const std::string& url, BenchConfig& config);

}  // namespace llm::loadgen
