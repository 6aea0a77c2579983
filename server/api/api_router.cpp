#include "server/api/api_router.h"

#include <cctype>
#include <cstdio>
#include <ctime>
#include <optional>
#include <random>

#include "core/build_info.h"
#include "core/exposition.h"
#include "server/api/json_text.h"
#include "server/api/openai_response.h"
#include "server/api/render_api.h"
#include "server/api/responses_request.h"
#include "server/api/tokenize_api.h"

namespace llm {
namespace {

bool under(std::string_view path, std::string_view prefix) {
  return path == prefix || (path.size() > prefix.size() &&
                            path.substr(0, prefix.size()) == prefix && path[prefix.size()] == '/');
}

HttpResponse error_response(int status, std::string message, std::string param = "") {
  HttpResponse r;
  r.status = status;
  r.body = error_body(ApiError{status, std::move(message), std::move(param), ""});
  return r;
}

// vLLM's QueueOverflowError: 503 ServiceUnavailableError; our Retry-After tells clients when to
// try again.
HttpResponse admission_rejected(AdmissionMetrics* metrics) {
  if (metrics) metrics->record(AdmissionRejection::kMaxNumQueuedReqs);
  HttpResponse r = error_response(503,
                                  "The engine is currently busy and cannot accept new requests. "
                                  "Please try again later or on a different instance.");
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

ModelInfo model_info(const ServerContext& context) {
  return ModelInfo{context.setup.served_model_name, context.setup.scheduler.max_model_len,
                   context.setup.scheduler.policy == SchedulingPolicy::kPriority,
                   context.setup.served_model_aliases,
                   // the cuda sampler has no min_tokens, penalties or min_p yet
                   context.options.backend != "cuda"};
}

// llm-d's model-server response headers (as llm-d-inference-sim sets them): the pod and the port
// the request came in on when POD_NAME is set, the namespace when POD_NAMESPACE is.
void add_pod_headers(const ServerContext& context, const HttpRequest& req,
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
  constexpr std::string_view kPrefix = "Bearer ";
  // Compare every byte of the longer of the two so the time does not depend on where they differ.
  const std::string expected = std::string(kPrefix) + std::string(key);
  unsigned char diff = authorization.size() == expected.size() ? 0 : 1;
  const size_t n = std::max(authorization.size(), expected.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char a = i < authorization.size() ? authorization[i] : 0;
    const unsigned char b = i < expected.size() ? expected[i] : 0;
    diff |= a ^ b;
  }
  return diff == 0;
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

RouteResult ApiRouter::route(const HttpRequest& req) {
  const ServerOptions& o = context_.options;
  const std::string& path = req.path;
  RouteResult result;
  HttpResponse& r = result.response;

  const std::string request_id = req.request_id.empty() ? random_request_id() : req.request_id;
  std::vector<std::pair<std::string, std::string>> extra;
  if (o.enable_request_id_headers) extra.emplace_back("X-Request-Id", request_id);
  auto finish = [&](HttpResponse response) {
    response.headers.insert(response.headers.end(), extra.begin(), extra.end());
    result.response = std::move(response);
    return std::move(result);
  };

  // vLLM's guarded prefixes, plus its root-level tokenizer routes (recent vLLM guards every route
  // that is not public: /health, /version, /metrics stay open).
  const bool tokenizer_path = path == "/tokenize" || path == "/detokenize";
  const bool api_path = under(path, "/v1") || under(path, "/v2") || under(path, "/inference") ||
                        under(path, "/cohere") || tokenizer_path;
  const bool metrics_path = path == "/metrics" || path == "/v1/metrics";
  if (!o.api_key.empty() && api_path && !bearer_matches(req.authorization, o.api_key)) {
    return finish(unauthorized());
  }
  if (!o.metrics_api_key.empty() && metrics_path &&
      !bearer_matches(req.authorization, o.metrics_api_key)) {
    return finish(unauthorized());
  }

  auto need = [&](const char* method) {
    if (req.method == method) return true;
    HttpResponse e = error_response(
        405, "Method " + req.method + " is not allowed on " + path + " (use " + method + ")");
    e.headers.emplace_back("Allow", method);
    r = std::move(e);
    return false;
  };

  if (path == "/health") {
    if (!need("GET")) return finish(std::move(r));
    r.content_type.clear();
    r.status = context_.draining.load() || context_.engines.failed() ? 503 : 200;
    return finish(std::move(r));
  }
  if (path == "/version") {
    if (!need("GET")) return finish(std::move(r));
    r.body = std::string(R"({"version":")") + version_string() + "\"}";  // vLLM's shape
    return finish(std::move(r));
  }
  if (path == "/v1/models") {
    if (!need("GET")) return finish(std::move(r));
    const EngineSetup& setup = context_.setup;
    std::vector<std::string> names{setup.served_model_name};
    names.insert(names.end(), setup.served_model_aliases.begin(), setup.served_model_aliases.end());
    r.body = build_models_body(names, setup.model_root, setup.scheduler.max_model_len,
                               static_cast<int64_t>(std::time(nullptr)), random_request_id);
    return finish(std::move(r));
  }
  if (metrics_path) {
    if (!need("GET")) return finish(std::move(r));
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.body = serialize_exposition(context_.engines.collect_metrics(*context_.registry));
    return finish(std::move(r));
  }
  if (tokenizer_path) {
    if (!need("POST")) return finish(std::move(r));
    if (!is_json_media_type(req.content_type)) return finish(not_json(req.content_type));
    try {
      const ModelInfo model = model_info(context_);
      std::vector<std::string> ignored;
      r.body = path == "/tokenize"
                   ? tokenize_response(req.body, *context_.codec, model, &ignored)
                   : detokenize_response(req.body, *context_.codec, model, &ignored);
      log_ignored_fields(request_id, ignored);
    } catch (const ApiException& e) {
      r.status = e.error().status;
      r.body = error_body(e.error());
    }
    return finish(std::move(r));
  }
  const bool render_chat = path == "/v1/chat/completions/render";
  if (render_chat || path == "/v1/completions/render") {
    // Tokenizer work only: served while draining or after an engine failure, never admitted.
    if (!need("POST")) return finish(std::move(r));
    if (!is_json_media_type(req.content_type)) return finish(not_json(req.content_type));
    try {
      CompletionRequest parsed =
          parse_completion_request(render_chat ? Endpoint::kChat : Endpoint::kCompletions, req.body,
                                   *context_.codec, model_info(context_));
      log_ignored_fields(request_id, parsed.ignored_fields);
      r.body = render_response(parsed, request_id, context_.setup.scheduler.max_model_len);
    } catch (const ApiException& e) {
      r.status = e.error().status;
      r.body = error_body(e.error());
    }
    return finish(std::move(r));
  }
  const bool chat = path == "/v1/chat/completions";
  const bool responses = path == "/v1/responses";
  if (chat || responses || path == "/v1/completions") {
    if (!need("POST")) return finish(std::move(r));
    if (!is_json_media_type(req.content_type)) return finish(not_json(req.content_type));
    if (context_.draining.load()) {
      return finish(
          error_response(503, "The server is shutting down and accepts no new requests."));
    }
    if (context_.engines.failed()) {
      return finish(error_response(
          503, "The engine has failed and accepts no new requests (see the server log)."));
    }
    // Admission control: a cheap look first, so that under overload most refusals cost no parsing
    // or tokenization; then, knowing n and the prompts, a reservation of all their sequences.
    const int64_t limit = o.max_waiting_requests;
    if (limit >= 0 && static_cast<int64_t>(context_.engines.num_waiting()) >= limit) {
      return finish(admission_rejected(context_.admission_metrics));
    }
    try {
      const ModelInfo model = model_info(context_);
      CompletionRequest parsed =
          responses ? parse_responses_request(req.body, *context_.codec, model)
                    : parse_completion_request(chat ? Endpoint::kChat : Endpoint::kCompletions,
                                               req.body, *context_.codec, model);
      log_ignored_fields(request_id, parsed.ignored_fields);
      if (limit >= 0) {
        const int64_t sequences = static_cast<int64_t>(parsed.prompts.size()) * parsed.n;
        std::optional<WaitingReservation> place =
            context_.engines.reserve_waiting(sequences, limit);
        if (!place) return finish(admission_rejected(context_.admission_metrics));
        result.admission = std::move(*place);
      }
      add_pod_headers(context_, req, extra);
      result.job = std::make_shared<CompletionJob>(context_, std::move(parsed), req, request_id,
                                                   std::move(extra));
      return result;
    } catch (const ApiException& e) {
      HttpResponse er;
      er.status = e.error().status;
      er.body = error_body(e.error());
      return finish(std::move(er));
    }
  }
  return finish(error_response(404, "Route " + path + " not found"));
}

}  // namespace llm
