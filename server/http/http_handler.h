// What HttpServer serves: the application behind it (llmserve's ApiRouter, a fake in the
// transport tests) routes each request to a response at once or to an HttpJob that produces one
// over time (a generation), and gives the errors the server meets itself their shape (the
// server's own refusals, and the exceptions that escape a request's handler or job).
// The transport knows HTTP and nothing of the API: no JSON, no error envelope, no engine.
// Thread-safety: HttpHandler's methods are called from any I/O thread, concurrently; an HttpJob
// is used from its session's strand only (its own threads may call the `post` it was given).
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "server/http/http_message.h"

namespace llm {

// A response produced over time: streamed as chunked Server-Sent Events, or written whole once
// done().
class HttpJob {
 public:
  // Runs fn on the session's strand (called from any thread).
  using Post = std::function<void(std::function<void()>)>;

  virtual ~HttpJob() = default;

  // Starts the work on the routing thread. `progress` runs on the strand after one or more updates
  // (posted with `post`); then take_output() / done() / response() tell what to write. False when
  // the work was refused (shutting down): the server answers 503.
  virtual bool start(Post post, std::function<void()> progress) = 0;
  // The client went away, or the server failed the request: stop; no more output.
  virtual void cancel() = 0;

  virtual bool streaming() const = 0;
  // The extra headers of the response (or of the stream's head).
  virtual const std::vector<std::pair<std::string, std::string>>& headers() const = 0;
  virtual std::string take_output() = 0;  // streaming: bytes produced since the last call
  virtual bool done() const = 0;
  virtual HttpResponse response() const = 0;  // non-streaming: the response, once done()
  // Streaming, when the server fails the request after its head went out: the bytes that end the
  // stream with `error` in the job's own shape ("" to use the handler's, HttpFailure::stream_tail).
  virtual std::string stream_error_tail(const std::exception_ptr& error) = 0;
  // True once the job wants the connection closed at once, mid-response, without the response's
  // end (a test double's injected fault): the session writes what take_output() still has for a
  // stream, cancels the job and closes the socket.
  virtual bool drop_connection() const { return false; }
};

struct RouteResult {
  HttpResponse response;         // when job is null
  std::shared_ptr<HttpJob> job;  // a response produced over time, for the session to start
};

// What an exception that escaped a request's handler or job becomes.
struct HttpFailure {
  int status = 500;
  std::string message;      // for the error response, and the log when status >= 500
  std::string stream_tail;  // the bytes that end a stream whose head is already out
};

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;

  // Routes one parsed request. An exception it throws ends the request through failure().
  virtual RouteResult route(const HttpRequest& request) = 0;
  // The response of an error the server answers by itself: a request too large (413, 431), cut
  // short (408) or malformed (400), too many connections or shutting down (503), and the error
  // response of a failure().
  virtual HttpResponse error_response(int status, std::string message) const = 0;
  // Call with the exception that escaped route() or a job's update.
  virtual HttpFailure failure(const std::exception_ptr& error) const = 0;
};

}  // namespace llm
