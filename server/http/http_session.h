// The connections of HttpServer (http_server.cpp): each accepted socket becomes a keep-alive
// session on its own strand that reads requests with the server's limits (413, 431, a read
// deadline answered 408, malformed requests 400), routes each to the HttpHandler, writes its
// response or streams its job's output as chunked Server-Sent Events, keeps a read pending while a
// job runs (EOF cancels it), counts each routed exchange in HttpMetrics, and ends a request whose
// handler or job throws with the handler's failure response (Session::guarded). Internal to
// server/http: the sessions and the server are the only users of Asio and Beast.
// Thread-safety: a session runs on its own strand; HttpSessionShared's counters are atomic and the
// handler is called from every session concurrently.
#pragma once

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <utility>  // before Asio: Boost 1.74 under C++20

#include "server/http/http_handler.h"
#include "server/http/http_message.h"
#include "server/http/http_server.h"

namespace llm {

// What the sessions of one server share with it (HttpServer::Impl is one).
struct HttpSessionShared {
  HttpSessionShared(HttpHandler& h, HttpServerConfig c) : handler(h), config(std::move(c)) {}

  HttpHandler& handler;
  const HttpServerConfig config;
  std::atomic<size_t> open{0};
  std::atomic<size_t> generating{0};  // sessions with a job not yet fully written
  std::atomic<size_t> busy{0};  // sessions between a request's first bytes and its response's last
  std::atomic<bool> draining{false};  // every response says Connection: close
};

// Serves an accepted connection until it closes; past config.max_connections open ones, answers it
// 503 (the handler's error response) and closes it.
void start_session(boost::asio::ip::tcp::socket&& socket, HttpSessionShared& shared);
// Answers an accepted connection `response` and closes it (the server is stopping).
void refuse_session(boost::asio::ip::tcp::socket&& socket, HttpSessionShared& shared,
                    HttpResponse response);

}  // namespace llm
