#include "server/faults/fault_handler.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "core/flag_values.h"
#include "server/api/api_error.h"
#include "server/api/api_router.h"
#include "server/faults/failure_draw.h"
#include "server/faults/faulty_job.h"

namespace llm {
namespace {

RouteResult answer(int status, std::string body) {
  RouteResult r;
  r.response.status = status;
  r.response.body = std::move(body);
  return r;
}

RouteResult api_error_answer(const ApiError& e) { return answer(e.status, error_body(e)); }

bool is_generation(const HttpRequest& req) {
  return req.method == "POST" && (req.path == "/v1/chat/completions" ||
                                  req.path == "/v1/completions" || req.path == "/v1/responses");
}

// The per-request headers that replace the configured latency.
struct LatencyHeader {
  const char* name;
  bool duration;  // else a count of events
  int64_t LatencyPlan::*field;
};

constexpr LatencyHeader kLatencyHeaders[] = {
    {"X-Fault-TTFT", true, &LatencyPlan::ttft_ms},
    {"X-Fault-ITL", true, &LatencyPlan::itl_ms},
    {"X-Fault-Stall-After", false, &LatencyPlan::stall_after},
    {"X-Fault-Stall", true, &LatencyPlan::stall_ms},
    {"X-Fault-Cut-After", false, &LatencyPlan::cut_after},
};

// A 400 naming the header (as `param`) whose value is bad.
[[noreturn]] void bad_header(const char* name, const std::string& message) {
  throw ApiException(ApiError{400, message, name, "BadRequestError"});
}

}  // namespace

FaultState::FaultState(FaultSettings settings)
    : settings_(std::move(settings)),
      config_(settings_.config),
      health_epoch_(DelayTimer::Clock::now()) {}

FaultConfig FaultState::config() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return config_;
}

void FaultState::set_config(const FaultConfig& config, bool reset_counter, bool restart_health) {
  std::lock_guard<std::mutex> lock(mutex_);
  config_ = config;
  if (reset_counter) requests_ = 0;
  if (restart_health) health_epoch_ = DelayTimer::Clock::now();
}

void FaultState::restart_health() {
  std::lock_guard<std::mutex> lock(mutex_);
  health_epoch_ = DelayTimer::Clock::now();
}

bool FaultState::health_ready() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto since = std::chrono::duration_cast<std::chrono::milliseconds>(
      DelayTimer::Clock::now() - health_epoch_);
  return llm::health_ready(config_, since.count());
}

void FaultState::count_failure(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++injected_[what];
}

std::string FaultState::status_json() const {
  nlohmann::ordered_json j;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    j = fault_config_json(config_);
    j["requests_seen"] = requests_.load();
    nlohmann::ordered_json injected = nlohmann::ordered_json::object();
    for (const auto& [what, n] : injected_) injected[what] = n;
    j["injected_failures"] = injected;
  }
  const bool ready = health_ready();
  j["health_ready"] = ready;
  return j.dump();
}

RouteResult FaultHandler::own(const HttpRequest& req, RouteResult answer) const {
  if (state_.settings().enable_request_id_headers) {
    answer.response.headers.emplace_back("X-Request-Id", request_id_of(req));
  }
  return answer;
}

RouteResult FaultHandler::route(const HttpRequest& req) {
  if (req.path == "/health" && req.method == "GET" && !state_.health_ready()) {
    RouteResult r = answer(503, "");
    r.response.content_type.clear();
    return own(req, std::move(r));
  }
  const FaultSettings& s = state_.settings();
  if (s.enable_admin_api && req.path == "/admin/faults") return own(req, admin(req));
  if (!is_generation(req)) return inner_.route(req);
  // A request without the API key gets the router's 401, not a fault.
  if (!s.api_key.empty() && !bearer_matches(req.authorization, s.api_key)) {
    return inner_.route(req);
  }
  try {
    return generation(req);
  } catch (const ApiException& e) {
    return own(req, api_error_answer(e.error()));
  }
}

RouteResult FaultHandler::generation(const HttpRequest& req) {
  const FaultSettings& s = state_.settings();
  const FaultConfig config = state_.config();
  const uint64_t n = state_.next_request();
  LatencyPlan plan{config.ttft_ms, config.itl_ms, config.stall_after, config.stall_ms,
                   config.cut_after};
  if (s.enable_fault_headers) {
    const std::string_view forced = req.header("X-Return-Error");
    if (!forced.empty()) {
      int64_t status = 0;
      try {
        status = parse_int_flag("X-Return-Error", std::string(forced), 400, 599);
      } catch (const UsageError& e) {
        bad_header("X-Return-Error",
                   std::string(e.what()) + " (expected an HTTP error status, 400 to 599)");
      }
      state_.count_failure("X-Return-Error");
      const int code = static_cast<int>(status);
      return own(
          req, api_error_answer(ApiError{code,
                                         "Injected error: the request's X-Return-Error asked for " +
                                             std::to_string(code) + ".",
                                         "", error_type_for_status(code)}));
    }
    for (const LatencyHeader& h : kLatencyHeaders) {
      const std::string_view value = req.header(h.name);
      if (value.empty()) continue;
      try {
        plan.*h.field = h.duration ? parse_duration_ms(h.name, std::string(value))
                                   : parse_int_flag(h.name, std::string(value), 0);
      } catch (const UsageError& e) {
        bad_header(h.name, e.what());
      }
    }
  }
  if (const auto failure =
          draw_failure(config.seed, n, config.failure_rate, config.failure_types)) {
    state_.count_failure(failure_type_name(*failure));
    return own(req, api_error_answer(failure_error(*failure, s.model)));
  }
  RouteResult result = inner_.route(req);
  if (result.job && plan.any()) {
    result.job = std::make_shared<FaultyJob>(std::move(result.job), plan, state_.timer());
  }
  return result;
}

RouteResult FaultHandler::admin(const HttpRequest& req) {
  const FaultSettings& s = state_.settings();
  if (!s.api_key.empty() && !bearer_matches(req.authorization, s.api_key)) {
    return answer(401, R"({"error":"Unauthorized"})");
  }
  if (req.method == "GET") return answer(200, state_.status_json());
  if (req.method == "DELETE") {
    // Every fault off; the seed stays, the request count starts again.
    FaultConfig off;
    off.seed = state_.config().seed;
    state_.set_config(off, true, true);
    return answer(200, state_.status_json());
  }
  if (req.method == "POST") {
    bool seed_changed = false, health_changed = false;
    try {
      const FaultConfig next =
          apply_fault_json(state_.config(), req.body, &seed_changed, &health_changed);
      state_.set_config(next, seed_changed, health_changed);
    } catch (const UsageError& e) {
      const std::string what = e.what();
      const size_t colon = what.find(':');
      return api_error_answer(ApiError{
          400, what, colon == std::string::npos ? "" : what.substr(0, colon), "BadRequestError"});
    }
    return answer(200, state_.status_json());
  }
  RouteResult r = api_error_answer(ApiError{
      405, "Method " + req.method + " is not allowed on /admin/faults (use GET, POST or DELETE)",
      "", ""});
  r.response.headers.emplace_back("Allow", "GET, POST, DELETE");
  return r;
}

}  // namespace llm
