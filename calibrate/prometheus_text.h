// Reading the few figures llmsim calibrate and fidelity need from a server's /metrics text
// (Prometheus exposition format): the total of a series over its label sets (a histogram's _sum
// or _count) and the labels of an info metric (vllm:cache_config_info); and from them a prompt
// salt that no earlier run against the same server used.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace llm {

// The sum of every sample named `name` (any labels); nullopt when there is none.
std::optional<double> metric_total(const std::string& exposition, const std::string& name);

// The labels of the first sample named `name`; empty when there is none.
std::map<std::string, std::string> metric_labels(const std::string& exposition,
                                                 const std::string& name);

// A BenchConfig::prompt_salt for probe or run number `run` against a server whose /metrics
// text is `exposition`: it mixes in vllm:prompt_tokens_total, which every earlier request has
// moved, so the prompts share no prefix with any earlier run's and the server's prefix cache
// cannot shorten their prefills. Without /metrics ("") only `run` distinguishes the salts.
uint64_t fresh_prompt_salt(const std::string& exposition, uint64_t run);

}  // namespace llm
