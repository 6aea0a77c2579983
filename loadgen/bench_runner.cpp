// The HTTP side of llmbench: a Boost.Asio + Beast HTTP/1.1 client on one io_context thread, with a
// pool of keep-alive connections (one per request in flight), a dispatcher that sends the planned
// requests on time (or keeps N in flight), and incremental SSE parsing of streamed responses.
// This, http_get.cpp and fake_server.cpp are the only translation units of loadgen/ that include
// Asio.
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <utility>  // before Asio (Boost 1.74 with C++20)
#include <vector>

#include "loadgen/bench.h"
#include "loadgen/http_get.h"
#include "loadgen/sse.h"

namespace llm::loadgen {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

int64_t ns_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count();
}

struct Conn {
  explicit Conn(net::io_context& ioc) : socket(ioc) {}
  tcp::socket socket;
  beast::flat_buffer buffer;
  bool reused = false;  // has served a request before (the server may have closed it since)
};

struct Call {
  explicit Call(net::io_context& ioc) : timer(ioc) {}
  size_t slot = 0;  // index into results / plan
  uint64_t generation = 0;
  std::unique_ptr<Conn> conn;
  http::request<http::string_body> request;
  std::optional<http::response_parser<http::string_body>> parser;
  SseParser sse;
  Clock::time_point start;
  Clock::time_point last_content;
  bool header_checked = false;
  bool sse_body = false;  // the response is text/event-stream
  int status = 0;
  bool got_bytes = false;
  bool retried = false;
  bool timed_out = false;
  std::string stream_error;  // the first SSE error frame
  int64_t usage_prompt = -1;
  int64_t usage_completion = -1;
  net::steady_timer timer;  // the per-request timeout
};

class Runner {
 public:
  Runner(const Trace& trace, const BenchConfig& config)
      : trace_(trace), config_(config), dispatch_timer_(ioc_) {}

  BenchRun run() {
    tcp::resolver resolver(ioc_);
    error_code ec;
    auto endpoints = resolver.resolve(config_.host, std::to_string(config_.port), ec);
    if (ec || endpoints.empty())
      throw std::runtime_error("cannot resolve " + config_.host + ": " + ec.message());
    endpoint_ = endpoints.begin()->endpoint();
    host_header_ = config_.host + ":" + std::to_string(config_.port);
    model_ = config_.model.empty() ? first_served_model(config_) : config_.model;

    plan_ = plan_requests(trace_, config_);
    results_.assign(plan_.size(), RequestResult{});
    cap_ = plan_.size() + 1;
    if (config_.arrivals == BenchConfig::Arrivals::kClosedLoop) {
      cap_ = static_cast<size_t>(config_.concurrency);
    } else if (config_.max_concurrency > 0) {
      cap_ = static_cast<size_t>(config_.max_concurrency);
    }
    t0_ = Clock::now();
    end_ = t0_;
    net::post(ioc_, [this] { pump(); });
    ioc_.run();

    BenchRun out;
    const double duration_s = static_cast<double>(ns_between(t0_, end_)) / 1e9;
    out.report = compute_report(results_, duration_s, config_.slos, config_.errors_shown);
    out.report.max_in_flight = static_cast<int64_t>(max_in_flight_);
    out.results = std::move(results_);
    out.model = model_;
    return out;
  }

 private:
  void pump() {
    const Clock::time_point now = Clock::now();
    while (next_ < plan_.size() && in_flight_ < cap_) {
      const Clock::time_point due = t0_ + std::chrono::nanoseconds(plan_[next_].send_ns);
      if (due > now) {
        if (!timer_armed_) {
          timer_armed_ = true;
          dispatch_timer_.expires_at(due);
          dispatch_timer_.async_wait([this](error_code) {
            timer_armed_ = false;
            pump();
          });
        }
        return;
      }
      launch(next_++);
    }
  }

  Call* new_call() {
    if (!free_calls_.empty()) {
      Call* c = free_calls_.back();
      free_calls_.pop_back();
      return c;
    }
    calls_.push_back(std::make_unique<Call>(ioc_));
    return calls_.back().get();
  }

  void launch(size_t slot) {
    ++in_flight_;
    max_in_flight_ = std::max(max_in_flight_, in_flight_);
    Call* c = new_call();
    c->slot = slot;
    ++c->generation;
    c->header_checked = false;
    c->sse_body = false;
    c->status = 0;
    c->retried = false;
    c->timed_out = false;
    c->stream_error.clear();
    c->usage_prompt = -1;
    c->usage_completion = -1;

    const TraceRequest& tr = trace_.requests[plan_[slot].trace_index];
    RequestResult& r = results_[slot];
    r.prompt_tokens = std::max<int64_t>(tr.prompt_len, 1);
    r.itl_ns.reserve(static_cast<size_t>(std::max<int64_t>(tr.output_len, 1)));

    auto& req = c->request;
    req = {};
    req.method(http::verb::post);
    req.target(target_);
    req.version(11);
    req.set(http::field::host, host_header_);
    req.set(http::field::content_type, "application/json");
    if (!config_.api_key.empty()) req.set(http::field::authorization, auth_);
    req.body() = build_request_body(tr, config_, model_, slot);
    req.prepare_payload();

    c->start = Clock::now();
    r.send_ns = ns_between(t0_, c->start);
    if (config_.timeout_s > 0) {
      c->timer.expires_after(
          std::chrono::nanoseconds(static_cast<int64_t>(config_.timeout_s * 1e9)));
      c->timer.async_wait([c, gen = c->generation](error_code ec) {
        if (ec || c->generation != gen || !c->conn) return;
        c->timed_out = true;
        error_code ignored;
        c->conn->socket.close(ignored);  // the pending operation fails and ends the request
      });
    }
    start_attempt(c);
  }

  // fresh: on a new connection even when kept-alive ones are idle.
  void start_attempt(Call* c, bool fresh = false) {
    c->got_bytes = false;
    c->sse.reset();
    c->parser.emplace();
    c->parser->body_limit(
        std::numeric_limits<std::uint64_t>::max());  // not boost::none: 1.74 mishandles it
    if (!fresh && !idle_.empty()) {
      c->conn = std::move(idle_.back());
      idle_.pop_back();
      write(c);
      return;
    }
    c->conn = std::make_unique<Conn>(ioc_);
    c->conn->socket.async_connect(endpoint_, [this, c](error_code ec) {
      if (ec) return fail(c, "connect to " + host_header_ + ": " + ec.message());
      error_code ignored;
      c->conn->socket.set_option(tcp::no_delay(true), ignored);
      write(c);
    });
  }

  // A kept-alive connection may have been closed by the server meanwhile (its idle timeout): try
  // once more on a new connection when nothing of the response arrived. The other idle
  // connections have waited at least as long (the most recently used is taken first), so they
  // are dropped too; a retry on one of them would fail the same way.
  bool retry(Call* c) {
    if (c->timed_out || c->retried || !c->conn->reused || c->got_bytes) return false;
    c->retried = true;
    c->conn.reset();
    idle_.clear();
    start_attempt(c, /*fresh=*/true);
    return true;
  }

  void write(Call* c) {
    http::async_write(c->conn->socket, c->request, [this, c](error_code ec, size_t) {
      if (ec) {
        if (retry(c)) return;
        return fail(c, "send: " + ec.message());
      }
      read(c);
    });
  }

  void read(Call* c) {
    http::async_read_some(c->conn->socket, c->conn->buffer, *c->parser,
                          [this, c](error_code ec, size_t) { on_read(c, ec); });
  }

  void on_read(Call* c, error_code ec) {
    const Clock::time_point now = Clock::now();
    if (ec) {
      if (retry(c)) return;
      if (c->timed_out) return fail(c, "timeout after " + std::to_string(config_.timeout_s) + " s");
      return fail(c,
                  std::string(c->got_bytes ? "connection lost mid-response: " : "no response: ") +
                      ec.message());
    }
    c->got_bytes = true;
    auto& parser = *c->parser;
    if (!c->header_checked && parser.is_header_done()) {
      c->header_checked = true;
      c->status = static_cast<int>(parser.get().result_int());
      const auto ct = parser.get()[http::field::content_type];
      c->sse_body = ct.substr(0, 17) == "text/event-stream";
    }
    if (c->header_checked && c->status == 200 && c->sse_body) {
      std::string& body = parser.get().body();
      if (!body.empty()) {
        c->sse.feed(body, [&](std::string_view event, std::string_view data) {
          on_event(c, now, event, data);
        });
        body.clear();
      }
    }
    if (parser.is_done()) return finish(c, now);
    read(c);
  }

  void on_event(Call* c, Clock::time_point now, std::string_view event, std::string_view data) {
    if (data == "[DONE]") return;
    const ChunkInfo info = scan_chunk(data);
    if ((info.is_error || event == "error") && c->stream_error.empty()) {
      c->stream_error = "error frame: " + error_message(data);
    }
    RequestResult& r = results_[c->slot];
    if (info.has_content) {
      if (r.content_chunks == 0) {
        r.ttft_ns = ns_between(c->start, now);
      } else {
        r.itl_ns.push_back(ns_between(c->last_content, now));
      }
      c->last_content = now;
      ++r.content_chunks;
    }
    if (info.has_usage) {
      if (info.prompt_tokens >= 0) c->usage_prompt = info.prompt_tokens;
      if (info.completion_tokens >= 0) c->usage_completion = info.completion_tokens;
    }
  }

  void finish(Call* c, Clock::time_point now) {
    auto& parser = *c->parser;
    RequestResult& r = results_[c->slot];
    const bool keep_alive = parser.keep_alive();
    if (c->status != 200) {
      std::string msg = "HTTP " + std::to_string(c->status);
      if (!parser.get().body().empty()) msg += ": " + error_message(parser.get().body());
      return complete(c, keep_alive, std::move(msg));
    }
    if (c->sse_body) {
      c->sse.finish(
          [&](std::string_view event, std::string_view data) { on_event(c, now, event, data); });
      if (!c->stream_error.empty()) return complete(c, keep_alive, c->stream_error);
      if (r.content_chunks == 0) r.ttft_ns = ns_between(c->start, now);
      r.e2e_ns = r.content_chunks > 0 ? ns_between(c->start, c->last_content) : r.ttft_ns;
    } else {
      const std::string& body = parser.get().body();
      const ChunkInfo info = scan_chunk(body);
      if (info.is_error) return complete(c, keep_alive, "error response: " + error_message(body));
      r.content_chunks = info.has_content ? 1 : 0;
      r.ttft_ns = r.e2e_ns = ns_between(c->start, now);
      if (info.prompt_tokens >= 0) c->usage_prompt = info.prompt_tokens;
      if (info.completion_tokens >= 0) c->usage_completion = info.completion_tokens;
    }
    r.output_tokens = c->usage_completion >= 0 ? c->usage_completion : r.content_chunks;
    if (c->usage_prompt >= 0) r.prompt_tokens = c->usage_prompt;
    r.success = true;
    complete(c, keep_alive, {});
  }

  void fail(Call* c, std::string message) { complete(c, /*keep_alive=*/false, std::move(message)); }

  void complete(Call* c, bool keep_alive, std::string error) {
    RequestResult& r = results_[c->slot];
    if (!error.empty()) {
      r.success = false;
      r.error = std::move(error);
    }
    if (config_.timeout_s > 0) c->timer.cancel();
    ++c->generation;
    if (c->conn) {
      if (keep_alive && !c->timed_out) {
        c->conn->reused = true;
        idle_.push_back(std::move(c->conn));
      } else {
        error_code ignored;
        c->conn->socket.close(ignored);
        c->conn.reset();
      }
    }
    c->parser.reset();
    free_calls_.push_back(c);
    --in_flight_;
    end_ = Clock::now();
    pump();
  }

  const Trace& trace_;
  const BenchConfig& config_;
  net::io_context ioc_{1};
  tcp::endpoint endpoint_;
  std::string host_header_;
  std::string model_;
  std::string target_ = config_.base_path + config_.endpoint;
  std::string auth_ = "Bearer " + config_.api_key;
  std::vector<PlannedRequest> plan_;
  std::vector<RequestResult> results_;
  std::vector<std::unique_ptr<Call>> calls_;
  std::vector<Call*> free_calls_;
  std::vector<std::unique_ptr<Conn>> idle_;
  net::steady_timer dispatch_timer_;
  bool timer_armed_ = false;
  size_t next_ = 0;
  size_t in_flight_ = 0;
  size_t max_in_flight_ = 0;
  size_t cap_ = 0;
  Clock::time_point t0_;
  Clock::time_point end_;
};

}  // namespace

BenchRun run_benchmark(const Trace& trace, const BenchConfig& config) {
  Runner runner(trace, config);
  return runner.run();
}

}  // namespace llm::loadgen
