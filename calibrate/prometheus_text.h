// Reading the few figures llmsim calibrate and fidelity need from a server's /metrics text
// (Prometheus exposition format): the total of a series over its label sets (a histogram's _sum
// or _count) and the labels of an info metric (vllm:cache_config_info).
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace llm {

// The sum of every sample named `name` (any labels); nullopt when there is none.
std::optional<double> metric_total(const std::string& exposition, const std::string& name);

// The labels of the first sample named `name`; empty when there is none.
std::map<std::string, std::string> metric_labels(const std::string& exposition,
                                                 const std::string& name);

}  // namespace llm
