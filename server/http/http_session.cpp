#include "server/http/http_session.h"

#include <atomic>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>  // before Asio: Boost 1.74 under C++20

#include "core/http_metrics.h"
#include "server/http/handler_errors.h"
#include "server/http/http_handler.h"

namespace llm {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, HttpSessionShared& server)
      : stream_(std::move(socket)), server_(server), read_timer_(stream_.get_executor()) {
    ++server_.open;
  }
  ~Session() {
    if (job_) --server_.generating;
    set_busy(false);
    --server_.open;
  }

  void run() {
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&Session::do_read, shared_from_this()));
  }

  // Answers one error response (too many connections) and closes.
  void reject(HttpResponse response) {
    net::dispatch(stream_.get_executor(), [self = shared_from_this(), response] {
      self->keep_alive_ = false;
      self->response_complete_ = true;
      self->queue_write(serialize_response(response, false));
    });
  }

 private:
  std::chrono::steady_clock::duration read_timeout() const {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(server_.config.read_timeout_s));
  }

  void do_read() {
    if (closed_) return;
    parser_.emplace();
    parser_->body_limit(static_cast<uint64_t>(server_.config.max_body_bytes));
    parser_->header_limit(static_cast<uint32_t>(server_.config.max_header_bytes));
    start_read_timer();
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&Session::on_header, shared_from_this()));
  }

  // The read timeout is our own timer rather than the stream's expiry (which closes the socket), so
  // that a request cut off half-way can still be answered 408 before the connection closes.
  void start_read_timer() {
    read_timed_out_ = false;
    read_timer_.expires_after(read_timeout());
    read_timer_.async_wait([self = shared_from_this(), read = ++read_count_](beast::error_code ec) {
      // A wait already queued when the read ended (cancel() cannot recall it) is stale too.
      if (ec || self->closed_ || read != self->read_count_) return;
      self->read_timed_out_ = true;
      beast::error_code ignored;
      self->stream_.socket().cancel(ignored);  // the pending read completes: see on_read
    });
  }

  void stop_read_timer() {
    ++read_count_;
    read_timer_.cancel();
  }

  // The timer cancelled the read: an idle keep-alive connection is just closed; one with a
  // request started (some of its header or body received) gets 408 first.
  void on_read_timeout() {
    const bool started = buffer_.size() > 0 || (parser_ && parser_->got_some());
    if (!started) return close();
    char secs[32];
    std::snprintf(secs, sizeof(secs), "%g", server_.config.read_timeout_s);
    fail(408, std::string("The request was not received completely within ") + secs +
                  " s (--read-timeout).");
  }

  void on_header(beast::error_code ec, size_t) {
    if (ec) return on_read(ec, 0);
    set_busy(true);
    const auto& req = parser_->get();
    if (beast::iequals(req[http::field::expect], "100-continue")) {
      beast::error_code ignored;
      net::write(stream_.socket(), net::buffer(std::string_view("HTTP/1.1 100 Continue\r\n\r\n")),
                 ignored);
    }
    http::async_read(stream_, buffer_, *parser_,
                     beast::bind_front_handler(&Session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, size_t) {
    if (closed_) return;
    if (ec && read_timed_out_) return on_read_timeout();
    if (ec) stop_read_timer();
    if (ec == http::error::end_of_stream || ec == net::error::eof || ec == beast::error::timeout ||
        ec == net::error::connection_reset || ec == net::error::operation_aborted) {
      return close();
    }
    if (ec == http::error::body_limit) {
      return fail(413, "The request body exceeds the limit of " +
                           std::to_string(server_.config.max_body_bytes) +
                           " bytes (--max-request-body-bytes).");
    }
    if (ec == http::error::header_limit) {
      return fail(431, "The request headers exceed the limit of " +
                           std::to_string(server_.config.max_header_bytes) +
                           " bytes (--max-header-bytes).");
    }
    if (ec) {
      if (ec.category() == http::make_error_code(http::error::bad_method).category()) {
        return fail(400, std::string("Malformed HTTP request: ") + ec.message());
      }
      return close();
    }
    handle(parser_->release());
  }

  void fail(int status, std::string message) {
    const HttpResponse r = server_.handler.error_response(status, std::move(message));
    note_response(r.status, r.body.size());
    keep_alive_ = false;
    response_complete_ = true;
    queue_write(serialize_response(r, false));
  }

  // The boundary around everything a request runs on this session's strand: an exception from
  // routing, parsing, a response builder, the job's text pipeline or the request log ends this
  // request with an error response (or an SSE error frame once streaming), never the process.
  template <typename Fn>
  void guarded(const char* where, Fn&& fn) {
    try {
      fn();
    } catch (...) {
      handler_failed(where, std::current_exception());
    }
  }

  void handler_failed(const char* where, const std::exception_ptr& error) {
    HttpFailure failure = server_.handler.failure(error);
    if (failure.status >= 500) log_handler_error(where, method_, path_, failure.message);
    // A stream ends in its job's error shape; the handler's when the job cannot say.
    std::string error_tail;
    if (stream_head_sent_) {
      try {
        if (job_) error_tail = job_->stream_error_tail(error);
      } catch (...) {
      }
      if (error_tail.empty()) error_tail = std::move(failure.stream_tail);
    }
    if (job_) {
      try {
        job_->cancel();
      } catch (...) {  // the request log line may be lost; the engine work is aborted either way
      }
      job_.reset();
      --server_.generating;
    }
    if (closed_) return;
    if (response_complete_) return close();  // part of a response is out: it cannot be amended
    if (stream_head_sent_) {
      // Streaming: the status line is gone, so the error goes in the stream.
      append_chunk(error_tail);
      pending_ += kLastChunk;
      keep_alive_ = false;
      response_complete_ = true;
      if (!writing_) do_write();
      return;
    }
    fail(failure.status, std::move(failure.message));
  }

  void handle(http::request<http::string_body>&& req) {
    stop_read_timer();
    set_busy(true);
    method_ = std::string(req.method_string().data(), req.method_string().size());
    path_ = std::string(req.target().data(), req.target().size());
    begin_exchange(req);
    guarded("request", [&] { route_and_start(std::move(req)); });
  }

  void route_and_start(http::request<http::string_body>&& req) {
    keep_alive_ = req.keep_alive() && !server_.draining.load();
    HttpRequest r;
    r.method = std::string(req.method_string().data(), req.method_string().size());
    const std::string_view target(req.target().data(), req.target().size());
    r.path = std::string(target.substr(0, target.find('?')));
    if (const size_t q = target.find('?'); q != std::string_view::npos) {
      r.query = std::string(target.substr(q + 1));
    }
    auto header = [&req](auto key) {
      const auto v = req[key];
      return std::string(v.data(), v.size());
    };
    r.authorization = header(http::field::authorization);
    r.request_id = header("X-Request-Id");
    r.traceparent = header("traceparent");
    r.tracestate = header("tracestate");
    r.content_type = header(http::field::content_type);
    for (const auto& field : req) {
      r.headers.emplace_back(std::string(field.name_string().data(), field.name_string().size()),
                             std::string(field.value().data(), field.value().size()));
    }
    r.keep_alive = keep_alive_;
    beast::error_code ignored;
    r.local_port = stream_.socket().local_endpoint(ignored).port();
    r.body = std::move(req.body());

    RouteResult result = server_.handler.route(r);
    if (!result.job) {
      response_complete_ = true;
      note_response(result.response.status, result.response.body.size());
      queue_write(serialize_response(result.response, keep_alive_));
      return;
    }
    job_ = std::move(result.job);
    ++server_.generating;
    auto self = shared_from_this();
    auto executor = stream_.get_executor();
    // The job's updates run on this strand behind the same boundary.
    const bool started = job_->start(
        [executor, self](std::function<void()> fn) {
          net::post(executor, [self, fn = std::move(fn)] { self->guarded("generation", fn); });
        },
        [self] { self->on_progress(); });
    if (!started) {
      job_.reset();
      --server_.generating;
      return fail(503, "The server is shutting down and accepts no new requests.");
    }
    if (job_->streaming()) {
      stream_head_sent_ = true;
      note_response(200, 0);  // a stream has no Content-Length
      queue_write(serialize_stream_head(job_->headers(), keep_alive_));
      // What the job has to say before any token (the Responses API's response.created and
      // response.in_progress events) goes out now, not with the first token.
      const std::string opening = job_->take_output();
      if (!opening.empty()) {
        append_chunk(opening);
        if (!writing_) do_write();
      }
    }
    start_monitor();
  }

  void on_progress() {
    if (!job_ || closed_) return;
    if (job_->drop_connection()) return cut_connection();
    if (job_->streaming()) {
      const std::string out = job_->take_output();
      if (!out.empty()) append_chunk(out);
      if (job_->done()) {
        finish_job();
        pending_ += kLastChunk;
      }
      if (!writing_ && !pending_.empty()) do_write();
    } else if (job_->done()) {
      const HttpResponse response = job_->response();
      finish_job();
      note_response(response.status, response.body.size());
      queue_write(serialize_response(response, keep_alive_));
    }
  }

  // The job asked for the connection to end mid-response (a fault injected on purpose): what it
  // produced so far goes out, then the socket closes without the stream's last chunk.
  void cut_connection() {
    if (job_->streaming()) {
      const std::string out = job_->take_output();
      if (!out.empty()) append_chunk(out);
    }
    job_->cancel();
    job_.reset();
    --server_.generating;
    cut_ = true;
    if (!writing_) {
      if (pending_.empty()) return close();
      do_write();
    }
  }

  // Chunked transfer framing, appended straight to the write buffer (no intermediate string).
  void append_chunk(std::string_view data) {
    char size[20];
    const int n = std::snprintf(size, sizeof(size), "%zx\r\n", data.size());
    pending_.append(size, static_cast<size_t>(n));
    pending_ += data;
    pending_ += "\r\n";
  }

  void finish_job() {
    job_.reset();
    --server_.generating;
    response_complete_ = true;
    stream_head_sent_ = false;
  }

  // A read kept pending while a generation runs: EOF or an error means the client is gone.
  void start_monitor() {
    if (monitoring_ || closed_) return;
    monitoring_ = true;
    stream_.socket().async_read_some(
        buffer_.prepare(4096), beast::bind_front_handler(&Session::on_monitor, shared_from_this()));
  }

  void on_monitor(beast::error_code ec, size_t n) {
    monitoring_ = false;
    if (closed_) return;
    if (ec == net::error::operation_aborted) {
      if (resume_after_monitor_) {
        resume_after_monitor_ = false;
        do_read();
      }
      return;
    }
    if (ec) return client_gone();
    buffer_.commit(n);  // a pipelined request: kept for the next parse
    if (resume_after_monitor_) {
      resume_after_monitor_ = false;
      do_read();
    } else if (job_ && buffer_.size() < (1u << 20)) {
      start_monitor();
    }
  }

  void client_gone() {
    if (job_) {
      guarded("cancel", [this] { job_->cancel(); });
      if (job_) {
        job_.reset();
        --server_.generating;
      }
    }
    close();
  }

  void queue_write(std::string&& data) {
    if (closed_) return;
    if (pending_.empty() && pending_.capacity() <= data.capacity()) {
      pending_ = std::move(data);
    } else {
      pending_ += data;
    }
    if (!writing_) do_write();
  }

  // Everything queued since the last write goes out in one write (SSE frames of several tokens
  // coalesce while the previous write is in flight).
  void do_write() {
    if (closed_) return;
    writing_ = true;
    current_.clear();
    current_.swap(pending_);
    net::async_write(stream_.socket(), net::buffer(current_),
                     beast::bind_front_handler(&Session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, size_t) {
    writing_ = false;
    if (closed_) return;
    if (ec) return client_gone();
    if (!pending_.empty()) return do_write();
    if (cut_) return close();
    if (current_.capacity() > kKeepBufferBytes) std::string().swap(current_);  // stay small
    if (pending_.capacity() > kKeepBufferBytes) std::string().swap(pending_);
    if (!response_complete_ || job_) return;
    response_complete_ = false;
    end_exchange();
    set_busy(false);
    if (!keep_alive_) return linger_close();
    if (monitoring_) {
      resume_after_monitor_ = true;
      beast::error_code ignored;
      stream_.socket().cancel(ignored);
    } else {
      do_read();
    }
  }

  // Half-closes, then discards what the client still sends (e.g. the rest of a refused body) for
  // a moment so that it reads our response instead of a connection reset.
  void linger_close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::chrono::seconds(2));
    drain();
  }

  void drain() {
    buffer_.clear();
    stream_.async_read_some(buffer_.prepare(65536),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->close();
                              self->drain();
                            });
  }

  void set_busy(bool busy) {
    if (busy == busy_) return;
    busy_ = busy;
    if (busy) {
      ++server_.busy;
    } else {
      --server_.busy;
    }
  }

  // The HTTP metrics of one routed request: opened when it is handled, given the status of the
  // first response head sent, recorded once when the response is written or the connection ends.
  void begin_exchange(const http::request<http::string_body>& req) {
    if (!server_.config.metrics) return;
    const std::string_view target(req.target().data(), req.target().size());
    exchange_ = HttpMetrics::Exchange{};
    exchange_.handler = HttpMetrics::handler_of(target.substr(0, target.find('?')));
    exchange_.method = HttpMetrics::method_of(
        std::string_view(req.method_string().data(), req.method_string().size()));
    exchange_.request_bytes = req.body().size();
    exchange_open_ =
        exchange_.handler != HttpMetrics::kExcluded && exchange_.method != HttpMetrics::kExcluded;
    exchange_start_ = std::chrono::steady_clock::now();
  }

  void note_response(int status, size_t body_bytes) {
    if (!exchange_open_ || exchange_.status != 0) return;
    exchange_.status = status;
    exchange_.response_bytes = body_bytes;
  }

  void end_exchange() {
    if (!exchange_open_) return;
    exchange_open_ = false;
    // A client that left before any response began got nothing: 499, not a server error.
    if (exchange_.status == 0) exchange_.status = HttpMetrics::kClientClosedRequest;
    exchange_.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - exchange_start_).count();
    server_.config.metrics->record(exchange_);
  }

  void close() {
    if (closed_) return;
    closed_ = true;
    end_exchange();
    set_busy(false);
    read_timer_.cancel();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  beast::tcp_stream stream_;
  HttpSessionShared& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<HttpJob> job_;
  static constexpr size_t kKeepBufferBytes = 16384;
  std::string pending_;  // bytes waiting for the write in flight
  std::string current_;  // the write in flight
  bool writing_ = false;
  bool keep_alive_ = true;
  bool response_complete_ = false;
  bool monitoring_ = false;
  bool resume_after_monitor_ = false;
  bool closed_ = false;
  bool busy_ = false;              // counted in server_.busy: a request is being read or answered
  bool stream_head_sent_ = false;  // a streaming response's head is out: errors go in SSE frames
  bool cut_ = false;               // the job dropped the connection: close once written
  std::string method_;             // of the request being handled, for the error log
  std::string path_;
  net::steady_timer read_timer_;  // after stream_: built on its executor
  bool read_timed_out_ = false;
  uint64_t read_count_ = 0;         // which read the timer's wait belongs to
  HttpMetrics::Exchange exchange_;  // the routed request being answered (with config.metrics)
  bool exchange_open_ = false;
  std::chrono::steady_clock::time_point exchange_start_;
};

}  // namespace

void start_session(tcp::socket&& socket, HttpSessionShared& shared) {
  auto session = std::make_shared<Session>(std::move(socket), shared);
  if (shared.open.load() > static_cast<size_t>(shared.config.max_connections)) {
    session->reject(shared.handler.error_response(
        503, "Too many open connections (limit " + std::to_string(shared.config.max_connections) +
                 ", --max-connections)."));
  } else {
    session->run();
  }
}

void refuse_session(tcp::socket&& socket, HttpSessionShared& shared, HttpResponse response) {
  std::make_shared<Session>(std::move(socket), shared)->reject(std::move(response));
}

}  // namespace llm
