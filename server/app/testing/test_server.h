// Test helper (server/app's tests): an in-process LlmServer on port 0 with zero-cost steps, for the
// HTTP client of server/testing/test_http_client.h.
// Thread-safety: plain functions; each server is driven from its test's thread.
#pragma once

#include <memory>

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

}  // namespace llm::testing
