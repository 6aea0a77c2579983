#include "server/http/http_server.h"

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>
#include <chrono>
#include <future>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>  // before Asio: Boost 1.74 under C++20
#include <vector>

#include "server/http/handler_errors.h"
#include "server/http/http_handler.h"
#include "server/http/http_session.h"

namespace llm {

namespace net = boost::asio;
namespace beast = boost::beast;
using tcp = net::ip::tcp;

// The sessions' shared part is a base: sessions destroyed with the io_context still update it.
struct HttpServer::Impl : HttpSessionShared {
  Impl(HttpHandler& h, HttpServerConfig c)
      : HttpSessionShared(h, std::move(c)), acceptor(net::make_strand(ioc)) {}

  void do_accept();
  void accept_backlog_and_close();  // on an I/O thread, at stop()

  net::io_context ioc;
  std::optional<net::executor_work_guard<net::io_context::executor_type>> work;
  tcp::acceptor acceptor;        // on its own strand: stop() closes it there
  bool stopping_accept = false;  // on the acceptor's strand
  std::vector<std::thread> threads;
  bool running = false;
};

namespace {

// An I/O thread. Session handlers catch what a request can throw (Session::guarded); anything
// else that escapes a handler is logged here and the thread goes on serving, so no exception ends
// the process.
void run_io_thread(net::io_context& ioc) {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      log_handler_error("I/O handler", "", "", e.what());
    } catch (...) {
      log_handler_error("I/O handler", "", "", "unknown exception");
    }
  }
}

}  // namespace

void HttpServer::Impl::accept_backlog_and_close() {
  beast::error_code ec;
  acceptor.cancel(ec);  // the pending async_accept ends with operation_aborted, not re-armed
  stopping_accept = true;
  acceptor.non_blocking(true, ec);
  for (;;) {
    tcp::socket socket(net::make_strand(ioc));
    acceptor.accept(socket, ec);
    if (ec) break;  // would block: the backlog is empty
    refuse_session(
        std::move(socket), *this,
        handler.error_response(503, "The server is shutting down and accepts no new requests."));
  }
  acceptor.close(ec);
}

void HttpServer::Impl::do_accept() {
  acceptor.async_accept(net::make_strand(ioc), [this](beast::error_code ec, tcp::socket socket) {
    if (stopping_accept) return;
    if (ec) {
      if (ec == net::error::operation_aborted || !acceptor.is_open()) return;
      return do_accept();  // e.g. too many open files: keep serving the others
    }
    // Streams are many small writes: without TCP_NODELAY, Nagle holds each one back until the
    // previous is acknowledged, i.e. up to the client's delayed-ACK timeout (40 ms on Linux).
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    start_session(std::move(socket), *this);
    do_accept();
  });
}

HttpServer::HttpServer(HttpHandler& handler, HttpServerConfig config)
    : impl_(std::make_unique<Impl>(handler, std::move(config))) {}

HttpServer::~HttpServer() { stop(); }

void HttpServer::start() {
  Impl& s = *impl_;
  beast::error_code ec;
  const auto address = net::ip::make_address(s.config.host, ec);
  if (ec) throw std::runtime_error("--host: not an IP address: " + s.config.host);
  const tcp::endpoint endpoint(address, static_cast<uint16_t>(s.config.port));
  s.acceptor.open(endpoint.protocol(), ec);
  if (!ec) s.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) s.acceptor.bind(endpoint, ec);
  if (!ec) s.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error("cannot listen on " + s.config.host + ":" +
                             std::to_string(s.config.port) + ": " + ec.message());
  }
  s.work.emplace(s.ioc.get_executor());
  s.do_accept();
  for (int i = 0; i < std::max(1, s.config.threads); ++i) {
    s.threads.emplace_back([&s] { run_io_thread(s.ioc); });
  }
  s.running = true;
}

uint16_t HttpServer::port() const {
  beast::error_code ec;
  return impl_->acceptor.local_endpoint(ec).port();
}

size_t HttpServer::open_connections() const { return impl_->open.load(); }
size_t HttpServer::active_generations() const { return impl_->generating.load(); }

void HttpServer::begin_drain() { impl_->draining = true; }

void HttpServer::stop(double grace_s) {
  Impl& s = *impl_;
  if (!s.running) return;
  s.running = false;
  s.draining = true;
  // 1. On an I/O thread: answer what already waits in the listen backlog, then stop accepting.
  std::promise<void> closed;
  net::post(s.acceptor.get_executor(), [&s, &closed] {
    s.accept_backlog_and_close();
    closed.set_value();
  });
  closed.get_future().wait_for(std::chrono::seconds(2));
  // 2. Requests being read or answered get a moment to finish writing.
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(grace_s));
  while (s.busy.load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  // 3. Everything else (idle keep-alive connections) ends with the I/O threads.
  s.work.reset();
  s.ioc.stop();
  for (std::thread& t : s.threads) t.join();
  s.threads.clear();
  beast::error_code ignored;
  s.acceptor.close(ignored);  // already closed unless step 1 did not run in time
}

}  // namespace llm
