// Test helper (server/app's tests): an in-process LlmServer on port 0 with zero-cost steps, for the
// HTTP client of server/testing/test_http_client.h.
// Thread-safety: plain functions; each server is driven from its test's thread.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "server/app/server_app.h"
#include "server/testing/test_http_client.h"

namespace llm::testing {

inline ServerOptions test_options() {
  ServerOptions o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.step_time_scale = 0;
  o.http_threads = 2;
  return o;
}

inline std::unique_ptr<LlmServer> start_server(const ServerOptions& options) {
  auto server = std::make_unique<LlmServer>(options);
  server->start();
  return server;
}

// The JSON objects of an SSE body's data frames (without [DONE]).
inline std::vector<nlohmann::json> sse_frames(const std::string& body) {
  std::vector<nlohmann::json> out;
  for (size_t pos = body.find("data: {"); pos != std::string::npos;
       pos = body.find("data: {", pos + 1)) {
    out.push_back(nlohmann::json::parse(body.substr(pos + 6, body.find("\n\n", pos) - pos - 6)));
  }
  return out;
}

}  // namespace llm::testing
