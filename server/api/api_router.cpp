#include "server/api/api_router.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <optional>
#include <random>

#include "core/admission_rule.h"
#include "core/build_info.h"
#include "core/exposition.h"
#include "server/api/api_error.h"
#include "server/api/completion_job.h"
#include "server/api/json_text.h"
#include "server/api/openai_response.h"
#include "server/api/render_api.h"
#include "server/api/responses_request.h"
#include "server/api/sleep_api.h"
#include "server/api/tokenize_api.h"

namespace llm {
namespace {

HttpResponse error_response(int status, std::string message, std::string param = "") {
  HttpResponse r;
  r.status = status;
  r.body = error_body(ApiError{status, std::move(message), std::move(param), ""});
  return r;
}

// vLLM's QueueOverflowError or MaxQueuedTokensError: 503 ServiceUnavailableError; our
// Retry-After tells clients when to try again.
HttpResponse admission_rejected(AdmissionMetrics* metrics, AdmissionRejection reason) {
  if (metrics) metrics->record(reason);
  HttpResponse r = error_response(503, admission_rejection_message(reason));
  r.headers.emplace_back("Retry-After", std::to_string(kAdmissionRetryAfterS));
  return r;
}

// vLLM's validate_json_request: the media type (before any ';' parameter, case-insensitive) must
// be application/json; a missing header fails too. vLLM answers 400, as we do.
bool is_json_media_type(std::string_view content_type) {
  const std::string_view media = content_type.substr(0, content_type.find(';'));
  constexpr std::string_view kJson = "application/json";
  if (media.size() != kJson.size()) return false;
  for (size_t i = 0; i < media.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(media[i])) != kJson[i]) return false;
  }
  return true;
}

HttpResponse not_json(std::string_view content_type) {
  return error_response(
      400,
      "Unsupported Media Type: Only 'application/json' is allowed (Content-Type: " +
          (content_type.empty() ? std::string("absent") : json_string_literal(content_type)) + ")",
      "Content-Type");
}

// vLLM warns the same way about the fields it ignored: the names only, never the values.
void log_ignored_fields(const std::string& request_id, const std::vector<std::string>& fields) {
  if (!fields.empty()) {
    std::fprintf(stderr, "%s\n", ignored_fields_log_line(request_id, fields).c_str());
  }
}

// llm-d's model-server response headers (as llm-d-inference-sim sets them): the pod and the port
// the request came in on when POD_NAME is set, the namespace when POD_NAMESPACE is.
void add_pod_headers(const ApiContext& context, const HttpRequest& req,
                     std::vector<std::pair<std::string, std::string>>& headers) {
  if (!context.pod_name.empty()) {
    headers.emplace_back("x-inference-pod", context.pod_name);
    headers.emplace_back("x-inference-port", std::to_string(req.local_port));
  }
  if (!context.pod_namespace.empty()) {
    headers.emplace_back("x-inference-namespace", context.pod_namespace);
  }
}

HttpResponse unauthorized() {
  HttpResponse r;
  r.status = 401;
  r.body = R"({"error":"Unauthorized"})";
  return r;
}

}  // namespace

bool bearer_matches(std::string_view authorization, std::string_view key) {
  // vLLM: the scheme is what precedes the first space, compared without case; the rest must be the
  // key exactly. The key's bytes are all compared, so the time does not depend on where they
  // differ.
  const size_t space = authorization.find(' ');
  if (space == std::string_view::npos) return false;
  const std::string_view scheme = authorization.substr(0, space);
  constexpr std::string_view kBearer = "bearer";
  bool scheme_ok = scheme.size() == kBearer.size();
  for (size_t i = 0; scheme_ok && i < kBearer.size(); ++i) {
    scheme_ok = std::tolower(static_cast<unsigned char>(scheme[i])) == kBearer[i];
  }
  const std::string_view given = authorization.substr(space + 1);
  unsigned char diff = given.size() == key.size() ? 0 : 1;
  const size_t n = std::max(given.size(), key.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char a = i < given.size() ? given[i] : 0;
    const unsigned char b = i < key.size() ? key[i] : 0;
    diff |= a ^ b;
  }
  return scheme_ok && diff == 0;
}

std::string random_request_id() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char* kHex = "0123456789abcdef";
  std::string id(32, '0');
  uint64_t a = rng(), b = rng();
  for (int i = 0; i < 16; ++i) {
    id[i] = kHex[(a >> (4 * i)) & 15];
    id[16 + i] = kHex[(b >> (4 * i)) & 15];
  }
  return id;
}

std::string request_id_of(const HttpRequest& req) {
  return req.request_id.empty() ? random_request_id() : req.request_id;
}

namespace {

// One request being routed: the HTTP request, its id (the client's X-Request-Id, or a fresh one)
// and the headers every response to it carries.
struct ApiCall {
  const HttpRequest& http;
  std::string request_id;
  std::vector<std::pair<std::string, std::string>> headers;
};

// A route: its path, the one method it takes (405 otherwise), whether a body must say it is JSON
// (vLLM's 400 otherwise), its handler, and the endpoint the render and generation handlers serve.
// A handler throws ApiException for the client's errors (ApiRouter::route's one boundary).
struct Route {
  std::string_view path;
  std::string_view method;
  bool json_body;
  RouteResult (*handle)(ApiContext& context, ApiCall& call, Endpoint endpoint);
  Endpoint endpoint = Endpoint::kChat;
};

RouteResult respond(HttpResponse response) {
  RouteResult result;
  result.response = std::move(response);
  return result;
}

RouteResult health_route(ApiContext& context, ApiCall&, Endpoint) {
  HttpResponse r;
  r.content_type.clear();
  r.status = context.draining.load() || context.engines.failed() ? 503 : 200;
  return respond(std::move(r));
}

RouteResult version_route(ApiContext&, ApiCall&, Endpoint) {
  HttpResponse r;
  r.body = std::string(R"({"version":")") + version_string() + "\"}";  // vLLM's shape
  return respond(std::move(r));
}

RouteResult models_route(ApiContext& context, ApiCall&, Endpoint) {
  const ModelInfo& model = context.model;
  std::vector<std::string> names{model.served_name};
  names.insert(names.end(), model.aliases.begin(), model.aliases.end());
  HttpResponse r;
  r.body = build_models_body(names, context.model_root, model.max_model_len,
                             static_cast<int64_t>(std::time(nullptr)), random_request_id);
  return respond(std::move(r));
}

RouteResult metrics_route(ApiContext& context, ApiCall&, Endpoint) {
  HttpResponse r;
  r.content_type = "text/plain; version=0.0.4; charset=utf-8";
  r.body = serialize_exposition(context.engines.collect_metrics(*context.registry));
  return respond(std::move(r));
}

RouteResult tokenizer_route(ApiContext& context, ApiCall& call, Endpoint) {
  const HttpRequest& req = call.http;
  std::vector<std::string> ignored;
  HttpResponse r;
  r.body = req.path == "/tokenize"
               ? tokenize_response(req.body, *context.codec, context.model, &ignored)
               : detokenize_response(req.body, *context.codec, context.model, &ignored);
  log_ignored_fields(call.request_id, ignored);
  return respond(std::move(r));
}

// Tokenizer work only: served while draining or after an engine failure, never admitted.
RouteResult render_route(ApiContext& context, ApiCall& call, Endpoint endpoint) {
  CompletionRequest parsed =
      parse_completion_request(endpoint, call.http.body, *context.codec, context.model);
  log_ignored_fields(call.request_id, parsed.ignored_fields);
  HttpResponse r;
  r.body = render_response(parsed, call.request_id, context.model.max_model_len);
  return respond(std::move(r));
}

RouteResult generate_route(ApiContext& context, ApiCall& call, Endpoint endpoint) {
  if (context.draining.load()) {
    return respond(error_response(503, "The server is shutting down and accepts no new requests."));
  }
  if (context.engines.failed()) {
    return respond(error_response(
        503, "The engine has failed and accepts no new requests (see the server log)."));
  }
  // Admission control: a cheap look first, so that under overload most refusals cost no parsing
  // or tokenization (as if n were 1); then, knowing n and the prompts, a reservation of all their
  // sequences.
  const int64_t limit = context.options.max_waiting_requests;
  const AdmissionCaps& caps = context.options.admission_caps;
  const bool capped = caps.max_num_queued_reqs >= 0 || caps.max_num_queued_tokens >= 0;
  if (capped) {
    if (auto refused = check_admission(caps, context.engines.admission_load(), 1)) {
      return respond(admission_rejected(context.admission_metrics, *refused));
    }
  }
  if (limit >= 0 && static_cast<int64_t>(context.engines.num_waiting()) >= limit) {
    return respond(
        admission_rejected(context.admission_metrics, AdmissionRejection::kMaxNumQueuedReqs));
  }
  const HttpRequest& req = call.http;
  CompletionRequest parsed =
      endpoint == Endpoint::kResponses
          ? parse_responses_request(req.body, *context.codec, context.model)
          : parse_completion_request(endpoint, req.body, *context.codec, context.model);
  log_ignored_fields(call.request_id, parsed.ignored_fields);
  std::optional<WaitingReservation> place;
  if (limit >= 0 || capped) {
    const int64_t sequences = static_cast<int64_t>(parsed.prompts.size()) * parsed.n;
    EngineSet::Admission admission = context.engines.admit(sequences, caps, limit);
    if (admission.refused) {
      return respond(admission_rejected(context.admission_metrics, *admission.refused));
    }
    place = std::move(admission.place);
  }
  add_pod_headers(context, req, call.headers);
  auto job = std::make_shared<CompletionJob>(context, std::move(parsed), req, call.request_id,
                                             std::move(call.headers));
  if (place) job->hold_place(std::move(*place));
  RouteResult result;
  result.job = std::move(job);
  return result;
}

// Sleep mode's dev routes (server/api/sleep_api.h): absent (404) unless sleep mode is on.
RouteResult sleep_mode_route(ApiContext& context, ApiCall& call, Endpoint) {
  const HttpRequest& req = call.http;
  if (!context.sleep) return respond(error_response(404, "Route " + req.path + " not found"));
  if (req.path == "/is_sleeping") return respond(is_sleeping_response(context));
  return respond(req.path == "/sleep" ? sleep_response(context, req.query)
                                      : wake_up_response(context, req.query));
}

const Route kRoutes[] = {
    {"/health", "GET", false, health_route},
    {"/version", "GET", false, version_route},
    {"/v1/models", "GET", false, models_route},
    {"/metrics", "GET", false, metrics_route},
    {"/v1/metrics", "GET", false, metrics_route},
    {"/tokenize", "POST", true, tokenizer_route},
    {"/detokenize", "POST", true, tokenizer_route},
    {"/v1/chat/completions/render", "POST", true, render_route, Endpoint::kChat},
    {"/v1/completions/render", "POST", true, render_route, Endpoint::kCompletions},
    {"/v1/chat/completions", "POST", true, generate_route, Endpoint::kChat},
    {"/v1/completions", "POST", true, generate_route, Endpoint::kCompletions},
    {"/v1/responses", "POST", true, generate_route, Endpoint::kResponses},
    {"/sleep", "POST", false, sleep_mode_route},
    {"/wake_up", "POST", false, sleep_mode_route},
    {"/is_sleeping", "GET", false, sleep_mode_route},
};

const Route* find_route(std::string_view path) {
  for (const Route& route : kRoutes) {
    if (route.path == path) return &route;
  }
  return nullptr;
}

// vLLM's AuthenticationMiddleware (vllm/entrypoints/serve/utils/server_utils.py): --api-key
// guards the paths that start with GUARDED_PREFIX ("/v1", "/v2", "/inference", "/cohere"; a plain
// string prefix, so "/v1x" too) and nothing else: /health, /version, /metrics, /tokenize,
// /detokenize and the sleep routes answer without it, as in vLLM. /metrics has its own key.
bool authorized(const ApiOptions& o, const HttpRequest& req) {
  const std::string& path = req.path;
  bool api_path = false;
  for (std::string_view prefix : {"/v1", "/v2", "/inference", "/cohere"}) {
    api_path = api_path || path.starts_with(prefix);
  }
  const bool metrics_path = path == "/metrics" || path == "/v1/metrics";
  if (!o.api_key.empty() && api_path && !bearer_matches(req.authorization, o.api_key)) {
    return false;
  }
  return o.metrics_api_key.empty() || !metrics_path ||
         bearer_matches(req.authorization, o.metrics_api_key);
}

RouteResult dispatch(ApiContext& context, ApiCall& call) {
  const HttpRequest& req = call.http;
  if (!authorized(context.options, req)) return respond(unauthorized());
  const Route* route = find_route(req.path);
  if (route && route->handle == sleep_mode_route && !context.sleep) route = nullptr;
  if (!route) return respond(error_response(404, "Route " + req.path + " not found"));
  if (req.method != route->method) {
    const std::string method(route->method);
    HttpResponse r = error_response(
        405, "Method " + req.method + " is not allowed on " + req.path + " (use " + method + ")");
    r.headers.emplace_back("Allow", method);
    return respond(std::move(r));
  }
  if (route->json_body && !is_json_media_type(req.content_type)) {
    return respond(not_json(req.content_type));
  }
  return route->handle(context, call, route->endpoint);
}

}  // namespace

HttpResponse ApiRouter::error_response(int status, std::string message) const {
  return llm::error_response(status, std::move(message));
}

HttpFailure ApiRouter::failure(const std::exception_ptr& error) const {
  const ApiError e = error_of_exception(error);
  return HttpFailure{e.status, e.message, build_error_frame(e) + kDoneFrame};
}

RouteResult ApiRouter::route(const HttpRequest& req) {
  ApiCall call{req, request_id_of(req), {}};
  if (context_.options.enable_request_id_headers) {
    call.headers.emplace_back("X-Request-Id", call.request_id);
  }
  RouteResult result;
  try {
    result = dispatch(context_, call);
  } catch (const ApiException& e) {  // the request's own error, in vLLM's envelope
    result = respond(HttpResponse{e.error().status, "application/json", error_body(e.error()), {}});
  }
  // A job carries the headers into its response; anything else is answered now.
  if (!result.job) {
    result.response.headers.insert(result.response.headers.end(), call.headers.begin(),
                                   call.headers.end());
  }
  return result;
}

}  // namespace llm
