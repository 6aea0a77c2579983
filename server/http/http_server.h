// The HTTP/1.1 front end (Boost.Asio + Beast, which only its .cpp and http_session.* include):
// an acceptor and keep-alive sessions (http_session.h) on a small pool of I/O threads, each
// session on its own strand. Requests are parsed with limits (body 413, header 431, a read deadline
// for slow or idle clients, a cap on open connections answered 503), handed to the HttpHandler
// (llmserve's ApiRouter), and its jobs (generations) are streamed as chunked Server-Sent Events or
// written whole. While a job runs the session keeps a read pending on its socket, so a client that
// disconnects (or a failed write) cancels the job (the request in the engine) at once. Each routed
// request is counted in HttpMetrics when its response is written or its connection ends (requests
// refused before routing, e.g. 413 or 408, are not: uvicorn answers those before vLLM's
// instrumentator sees them). Thread-safety: start(), begin_drain() and stop() from one controlling
// thread; open_connections() and active_generations() from any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace llm {

class HttpHandler;
class HttpMetrics;

struct HttpServerConfig {
  std::string host = "127.0.0.1";
  int port = 0;
  int threads = 2;
  int64_t max_body_bytes = 16 << 20;
  int64_t max_header_bytes = 16 << 10;
  double read_timeout_s = 60;  // an idle connection is closed; a request cut short gets 408
  int64_t max_connections = 4096;
  // The instrumentator's http_* metrics of every routed request (null: none). Not owned; it
  // outlives the server.
  HttpMetrics* metrics = nullptr;
};

class HttpServer {
 public:
  // `handler` outlives the server.
  HttpServer(HttpHandler& handler, HttpServerConfig config);
  ~HttpServer();  // stop() if still running
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds, listens and starts the I/O threads. Throws std::runtime_error (e.g. port in use).
  void start();
  uint16_t port() const;  // the bound port (useful with port 0)
  size_t open_connections() const;
  size_t active_generations() const;  // sessions with a generation not yet fully written
  // Draining (SIGTERM): every response from now on says Connection: close and its session reads
  // no further request, so no client sends a request on a connection about to close.
  void begin_drain();
  // Stops accepting (connections already waiting in the listen backlog are accepted and answered
  // 503), lets sessions with a request in progress finish writing for up to `grace_s`, then stops
  // the I/O threads and joins them. Pending handlers are destroyed with the server.
  void stop(double grace_s = 1.0);

  struct Impl;  // public name so the .cpp's sessions can refer to it; defined only there

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace llm
