#include "loadgen/fake_server.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <mutex>
#include <string>
#include <thread>
#include <utility>  // before Asio (Boost 1.74 with C++20)
#include <vector>

#include "loadgen/sse.h"

namespace llm::loadgen {

// What the server counts, for its accessors; updated by every session. Not in the anonymous
// namespace below: FakeOpenAiServer::Impl (external linkage) holds one, and gcc warns
// (-Wsubobject-linkage) when such a type holds one with internal linkage, as in a unity batch.
struct FakeServerCounters {
  std::atomic<int64_t> requests{0};
  std::atomic<int64_t> in_flight{0};
  std::atomic<int64_t> max_in_flight{0};
  std::atomic<int64_t> connections{0};
};

namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;

void append_chunked(std::string& out, std::string_view payload) {
  char hex[20];
  auto [end, ec] = std::to_chars(hex, hex + sizeof hex, payload.size(), 16);
  out.append(hex, end);
  out += "\r\n";
  out += payload;
  out += "\r\n";
}

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, const FakeServerOptions& options, FakeServerCounters& counters)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        options_(options),
        counters_(counters) {}

  void start() { read_request(); }

 private:
  void read_request() {
    request_ = {};
    const uint64_t wait = ++idle_waits_;
    if (options_.idle_close.count() > 0) {
      timer_.expires_after(options_.idle_close);
      timer_.async_wait([self = shared_from_this(), wait](error_code ec) {
        if (ec || wait != self->idle_waits_) return;  // a request came (or the wait is stale)
        error_code ignored;
        self->socket_.shutdown(tcp::socket::shutdown_both, ignored);
        self->socket_.close(ignored);
      });
    }
    http::async_read(socket_, buffer_, request_,
                     [self = shared_from_this()](error_code ec, size_t) { self->on_request(ec); });
  }

  void on_request(error_code ec) {
    ++idle_waits_;
    if (ec) return;
    ++counters_.requests;
    const int64_t now_in = ++counters_.in_flight;
    int64_t prev = counters_.max_in_flight.load();
    while (now_in > prev && !counters_.max_in_flight.compare_exchange_weak(prev, now_in)) {
    }
    const std::string_view target(request_.target().data(), request_.target().size());
    const std::string& body = request_.body();
    chat_ = target.find("chat") != std::string_view::npos;
    if (request_.method() == http::verb::get && target.ends_with("/v1/models")) {
      return send_simple(200, "application/json",
                         R"({"object":"list","data":[{"id":"fake-model","object":"model"}]})");
    }
    if (options_.status != 200) {
      return send_simple(
          options_.status, "application/json",
          R"({"object":"error","message":"fake error","type":"BadRequestError","code":)" +
              std::to_string(options_.status) + "}");
    }
    int64_t n = options_.chunks;
    if (n <= 0) {
      n = 16;
      if (size_t v = find_member_value(body, "max_tokens"); v != std::string::npos) {
        int64_t parsed = 0;
        auto [p, e] = std::from_chars(body.data() + v, body.data() + body.size(), parsed);
        if (e == std::errc() && parsed > 0) n = parsed;
      }
    }
    total_ = n;
    sent_ = 0;
    bool stream = false;
    if (size_t v = find_member_value(body, "stream"); v != std::string::npos)
      stream = body[v] == 't';
    if (!stream) {
      std::string text;
      for (int64_t i = 0; i < n; ++i) text += " tok";
      std::string json =
          chat_
              ? R"({"id":"cmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":")" +
                    text + R"("},"finish_reason":"length"}],)"
              : R"({"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":")" +
                    text + R"(","finish_reason":"length"}],)";
      json += R"("usage":{"prompt_tokens":4,"completion_tokens":)" + std::to_string(n) +
              R"(,"total_tokens":)" + std::to_string(n + 4) + "}}";
      return send_simple(200, "application/json", json);
    }
    out_ =
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
    if (options_.first_delay.count() == 0 && options_.gap.count() == 0 &&
        !options_.close_mid_stream) {
      while (sent_ < total_ && !add_next_chunk()) {
      }
      finish_stream();
      return write_out(true);
    }
    write_out(false);
  }

  // Appends the next content chunk; true when the stream ends early (error frame).
  bool add_next_chunk() {
    const std::string payload =
        chat_
            ? R"(data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":" tok"},"finish_reason":null}]})"
              "\n\n"
            : R"(data: {"id":"c","object":"text_completion","choices":[{"index":0,"text":" tok","finish_reason":null}]})"
              "\n\n";
    append_chunked(out_, payload);
    ++sent_;
    if (options_.sse_error && sent_ == 1) {
      append_chunked(out_,
                     "data: {\"error\":{\"message\":\"fake stream failure\",\"code\":500}}\n\n");
      sent_ = total_;
      return true;
    }
    return false;
  }

  void finish_stream() {
    append_chunked(
        out_,
        R"(data: {"id":"c","object":"text_completion","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":)" +
            std::to_string(sent_) + "}}\n\n");
    append_chunked(out_, "data: [DONE]\n\n");
    out_ += "0\r\n\r\n";
  }

  // Writes out_; when `last`, the response is complete afterwards, otherwise the next chunk
  // follows after its delay.
  void write_out(bool last) {
    net::async_write(socket_, net::buffer(out_),
                     [self = shared_from_this(), last](error_code ec, size_t) {
                       if (ec) {
                         --self->counters_.in_flight;
                         return;
                       }
                       self->out_.clear();
                       if (last) {
                         --self->counters_.in_flight;
                         return self->read_request();
                       }
                       self->schedule_next();
                     });
  }

  void schedule_next() {
    if (options_.close_mid_stream && sent_ >= total_ / 2 && sent_ > 0) {
      --counters_.in_flight;
      error_code ignored;
      socket_.shutdown(tcp::socket::shutdown_both, ignored);
      socket_.close(ignored);
      return;
    }
    const auto delay = sent_ == 0 ? options_.first_delay : options_.gap;
    timer_.expires_after(delay);
    timer_.async_wait([self = shared_from_this()](error_code ec) {
      if (ec) return;
      const bool ended = self->add_next_chunk();
      const bool last = ended || self->sent_ >= self->total_;
      if (last) self->finish_stream();
      self->write_out(last);
    });
  }

  void send_simple(int status, const char* content_type, std::string body) {
    out_ = "HTTP/1.1 " + std::to_string(status) + (status == 200 ? " OK" : " Error") +
           "\r\nContent-Type: " + content_type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    write_out(true);
  }

  tcp::socket socket_;
  net::steady_timer timer_;
  beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  const FakeServerOptions& options_;
  FakeServerCounters& counters_;
  std::string out_;
  bool chat_ = false;
  int64_t total_ = 0;
  int64_t sent_ = 0;
  uint64_t idle_waits_ = 0;  // read_request's count: an idle-close wait acts only if still current
};

}  // namespace

struct FakeOpenAiServer::Impl {
  FakeServerOptions options;
  net::io_context ioc;
  tcp::acceptor acceptor{ioc};
  FakeServerCounters counters;
  std::vector<std::thread> threads;
  std::mutex mu;
  bool stopped = false;

  void accept() {
    // Each session on its own strand: its read and its idle-close timer never run at once.
    acceptor.async_accept(net::make_strand(ioc), [this](error_code ec, tcp::socket socket) {
      if (ec) return;
      ++counters.connections;
      error_code ignored;
      socket.set_option(tcp::no_delay(true), ignored);
      std::make_shared<Session>(std::move(socket), options, counters)->start();
      accept();
    });
  }
};

FakeOpenAiServer::FakeOpenAiServer(FakeServerOptions options, uint16_t port)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = options;
  const tcp::endpoint ep(net::ip::make_address("127.0.0.1"), port);
  impl_->acceptor.open(ep.protocol());
  impl_->acceptor.set_option(tcp::acceptor::reuse_address(true));
  impl_->acceptor.bind(ep);
  impl_->acceptor.listen(net::socket_base::max_listen_connections);
  impl_->accept();
  for (int i = 0; i < std::max(1, options.threads); ++i)
    impl_->threads.emplace_back([this] { impl_->ioc.run(); });
}

FakeOpenAiServer::~FakeOpenAiServer() {
  stop();
  for (auto& t : impl_->threads)
    if (t.joinable()) t.join();
}

uint16_t FakeOpenAiServer::port() const { return impl_->acceptor.local_endpoint().port(); }
int64_t FakeOpenAiServer::requests() const { return impl_->counters.requests.load(); }
int64_t FakeOpenAiServer::max_in_flight() const { return impl_->counters.max_in_flight.load(); }
int64_t FakeOpenAiServer::connections() const { return impl_->counters.connections.load(); }

void FakeOpenAiServer::stop() {
  std::lock_guard lock(impl_->mu);
  if (impl_->stopped) return;
  impl_->stopped = true;
  impl_->ioc.stop();
}

void FakeOpenAiServer::wait() {
  for (auto& t : impl_->threads)
    if (t.joinable()) t.join();
}

}  // namespace llm::loadgen
