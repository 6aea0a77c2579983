// One blocking GET against the benchmark's target server (its host, port, base path and API
// key), for what llmbench and llmsim calibrate/fidelity ask outside the timed load: the model
// name (/v1/models), the server's kind (/version and its Server header) and its /metrics.
// Thread-safety: each call uses its own connection and event loop.
#pragma once

#include <string>

#include "loadgen/bench.h"

namespace llm::loadgen {

struct HttpGetResult {
  int status = 0;
  std::string server;  // the Server header ("llmserve" for ours)
  std::string body;
};

// Throws std::runtime_error "cannot GET http://HOST:PORT/PATH: why" when the server cannot be
// reached or answers with something that is not HTTP.
HttpGetResult http_get(const BenchConfig& target, const std::string& path);

// The first model of GET /v1/models. Throws std::runtime_error saying to pass --model.
std::string first_served_model(const BenchConfig& target);

}  // namespace llm::loadgen
