// Routing of one parsed HTTP request: auth (API key under /v1, /v2, /inference, /cohere and on
// /tokenize, /detokenize; the optional metrics key on /metrics), request ids, then one table of
// routes (path, method, JSON body or not, handler): the simple routes (/health, /version,
// /v1/models, /metrics, /tokenize, /detokenize, and the render endpoints /v1/completions/render
// and /v1/chat/completions/render) answered at once, and the generation routes
// (/v1/chat/completions, /v1/completions, /v1/responses) turned into a CompletionJob for the
// session to run. Unknown routes 404 and wrong methods 405, in the error envelope; a POST to a
// JSON route whose Content-Type is not application/json is a 400, as in vLLM. The client's errors
// a handler throws (ApiException) become their error response at one boundary in route(). Fields
// a request carried that the parser does not know go to stderr, one line per request, names only.
// With --max-waiting-requests, a completion that would make more sequences wait than the limit is
// refused with 503, Retry-After and vLLM's message, and counted in
// vllm:admission_rejections_total; /health is not affected.
// It is llmserve's HttpHandler: it also shapes the HTTP server's own errors as vLLM's.
// Thread-safety: every method may be called from any I/O thread concurrently.
#pragma once

#include <exception>
#include <string>
#include <string_view>

#include "server/api/api_context.h"
#include "server/http/http_handler.h"
#include "server/http/http_message.h"

namespace llm {

// Generations are CompletionJobs; an admitted one holds its place among the waiting
// (--max-waiting-requests) until its start(), which the HTTP server calls on the routing thread.
class ApiRouter final : public HttpHandler {
 public:
  explicit ApiRouter(ApiContext& context) : context_(context) {}
  RouteResult route(const HttpRequest& request) override;
  // The error envelope with vLLM's type for the status.
  HttpResponse error_response(int status, std::string message) const override;
  // error_of_exception's status and message, and a stream's end as a chat error frame and [DONE].
  HttpFailure failure(const std::exception_ptr& error) const override;

 private:
  ApiContext& context_;
};

// Whether an Authorization header is "Bearer KEY" as vLLM reads it: the scheme before the first
// space in any case, then exactly the key, compared in constant time.
bool bearer_matches(std::string_view authorization, std::string_view key);
// A random 32-hex-digit id (uuid4 without dashes).
std::string random_request_id();
// The id a response names in X-Request-Id: the client's header, or a fresh random one.
std::string request_id_of(const HttpRequest& req);

}  // namespace llm
