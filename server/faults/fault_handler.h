// llmserve as a test double for gateways (docs/test-double.md): an HttpHandler in front of the
// API router that breaks on purpose. On the generation routes (POST /v1/chat/completions,
// /v1/completions, /v1/responses; after the API key check) it fails the requests that
// draw_failure picks with the configured types' errors, answers X-Return-Error's status, and wraps
// the jobs in FaultyJob to add latency, stall or cut streams; it answers /health 503 during the
// startup delay and the unready half of each flap period; with the admin API it serves
// GET/POST/DELETE /admin/faults (behind --api-key when set). Everything else goes to the router.
// Its answers go out through the HTTP server, so http_requests_total counts them by status; with
// --enable-request-id-headers they carry X-Request-Id as the router's do (vLLM's middleware sets
// it on every response).
// FaultState is what the front ends of one server share: the configuration, the request counter
// and the timer.
// Thread-safety: FaultState is guarded by its mutex; the handler's methods may be called from any
// I/O thread concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "server/faults/delay_timer.h"
#include "server/faults/fault_config.h"
#include "server/http/http_handler.h"

namespace llm {

struct FaultSettings {
  FaultConfig config;
  bool enable_admin_api = false;           // GET/POST/DELETE /admin/faults
  bool enable_fault_headers = false;       // X-Return-Error and X-Fault-* on each request
  std::string api_key;                     // --api-key: the admin API requires it too
  bool enable_request_id_headers = false;  // X-Request-Id on the handler's own answers too
  std::string model;                       // the served model name, for the failure messages
};

class FaultState {
 public:
  explicit FaultState(FaultSettings settings);
  const FaultSettings& settings() const { return settings_; }
  FaultConfig config() const;
  void set_config(const FaultConfig& config, bool reset_counter, bool restart_health);
  // The index of the next generation request (0, 1, ...).
  uint64_t next_request() { return requests_.fetch_add(1); }
  bool health_ready() const;
  // The /health schedule (startup delay, flaps) starts again now: when the server starts listening.
  void restart_health();
  void count_failure(const std::string& what);
  std::string status_json() const;  // GET /admin/faults
  DelayTimer& timer() { return timer_; }

 private:
  const FaultSettings settings_;
  mutable std::mutex mutex_;
  FaultConfig config_;
  DelayTimer::Clock::time_point health_epoch_;
  std::map<std::string, uint64_t> injected_;  // failure type or "X-Return-Error" -> count
  std::atomic<uint64_t> requests_{0};
  DelayTimer timer_;
};

class FaultHandler final : public HttpHandler {
 public:
  // `inner` and `state` must outlive the handler.
  FaultHandler(HttpHandler& inner, FaultState& state) : inner_(inner), state_(state) {}
  RouteResult route(const HttpRequest& request) override;
  HttpResponse error_response(int status, std::string message) const override {
    return inner_.error_response(status, std::move(message));
  }
  HttpFailure failure(const std::exception_ptr& error) const override {
    return inner_.failure(error);
  }

 private:
  RouteResult admin(const HttpRequest& request);
  RouteResult generation(const HttpRequest& request);
  // The handler's own answer to `request` (not the router's), with X-Request-Id when enabled.
  RouteResult own(const HttpRequest& request, RouteResult answer) const;
  HttpHandler& inner_;
  FaultState& state_;
};

}  // namespace llm
