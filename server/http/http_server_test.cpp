// HttpServer over loopback with a fake handler (server/http/testing/fake_http_handler.h):
// keep-alive, the request limits and their error responses, the read timeout, a client that leaves
// a stream, and the exception boundary around a handler and a job.
#include "server/http/http_server.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>

#include "server/http/testing/fake_http_handler.h"
#include "server/testing/test_http_client.h"

namespace llm {
namespace {

using testing::Connection;
using testing::eventually;
using testing::FakeHandler;
using testing::FakeJob;
using testing::job_result;
using testing::request;
using testing::text_response;

// GET /health: 200 and no body. POST /stream: a stream of two frames, done at once. POST
// /running: a stream that runs until its client leaves or the test fails it (the last one is
// kept). POST /throw: the handler throws. Anything else: 404.
class TransportRoutes {
 public:
  RouteResult operator()(const HttpRequest& req) {
    if (req.path == "/health") {
      HttpResponse r = text_response(200, "");
      r.content_type.clear();
      RouteResult result;
      result.response = r;
      return result;
    }
    if (req.path == "/stream") {
      return job_result(std::make_shared<FakeJob>(true, "data: a\n\ndata: [DONE]\n\n", true));
    }
    if (req.path == "/running") {
      auto job = std::make_shared<FakeJob>(true, "", false);
      std::lock_guard<std::mutex> lock(mutex_);
      running_ = job;
      return job_result(job);
    }
    if (req.path == "/throw") throw std::runtime_error("boom\n");
    RouteResult result;
    result.response = text_response(404, "no route");
    return result;
  }
  std::shared_ptr<FakeJob> running() {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_;
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<FakeJob> running_;
};

// An HttpServer on 127.0.0.1, port 0, serving TransportRoutes.
struct TransportServer {
  explicit TransportServer(HttpServerConfig config = {})
      : handler([this](const HttpRequest& r) { return routes(r); }),
        server(handler, with_loopback(std::move(config))) {
    server.start();
  }
  static HttpServerConfig with_loopback(HttpServerConfig config) {
    config.host = "127.0.0.1";
    config.port = 0;
    return config;
  }
  uint16_t port() const { return server.port(); }

  TransportRoutes routes;
  FakeHandler handler;
  HttpServer server;
};

TEST(HttpServer, KeepAliveServesSeveralRequestsOnOneConnection) {
  TransportServer s;
  Connection c(s.port());
  for (int i = 0; i < 3; ++i) {
    c.send_request("POST", "/stream", R"({"prompt":"a"})");
    const auto r = c.read_response();
    EXPECT_EQ(r.status, 200);
    EXPECT_TRUE(r.chunked);
    EXPECT_EQ(r.header("content-type"), "text/event-stream; charset=utf-8");
    EXPECT_EQ(r.body, "data: a\n\ndata: [DONE]\n\n");
    c.send_request("GET", "/health", "");
    const auto h = c.read_response();
    EXPECT_EQ(h.status, 200);
    EXPECT_EQ(h.header("connection"), "keep-alive");
  }
  EXPECT_EQ(s.server.active_generations(), 0u);
}

TEST(HttpServer, LimitsBodyHeaderAndConnections) {
  HttpServerConfig config;
  config.max_body_bytes = 1000;
  config.max_header_bytes = 1024;
  config.max_connections = 3;
  TransportServer s(config);
  const uint16_t port = s.port();
  auto r = request(port, "POST", "/stream", R"({"prompt":")" + std::string(5000, 'a') + R"("})");
  EXPECT_EQ(r.status, 413);
  EXPECT_EQ(r.body.rfind("413 ", 0), 0u) << r.body;  // the handler's error shape
  EXPECT_NE(r.body.find("--max-request-body-bytes"), std::string::npos) << r.body;
  r = request(port, "GET", "/health", "", {{"X-Big", std::string(2000, 'b')}});
  EXPECT_EQ(r.status, 431);
  EXPECT_NE(r.body.find("--max-header-bytes"), std::string::npos) << r.body;
  // Three idle keep-alive connections fill the limit; the fourth is refused with 503.
  Connection a(port), b(port), c(port);
  ASSERT_TRUE(eventually([&] { return s.server.open_connections() == 3; }));
  r = request(port, "GET", "/health");
  EXPECT_EQ(r.status, 503);
  EXPECT_NE(r.body.find("--max-connections"), std::string::npos) << r.body;
  a.close();
  ASSERT_TRUE(eventually([&] { return s.server.open_connections() == 2; }));
  EXPECT_EQ(request(port, "GET", "/health").status, 200);
}

TEST(HttpServer, ReadTimeoutClosesSlowClients) {
  HttpServerConfig config;
  config.read_timeout_s = 0.2;
  TransportServer s(config);
  Connection c(s.port());
  c.send("GET /health HTTP/1.1\r\nHost: x\r\n");  // never finishes its headers
  auto r = c.read_response();
  EXPECT_EQ(r.status, 408);
  EXPECT_EQ(r.header("connection"), "close");
  EXPECT_EQ(r.body.rfind("408 ", 0), 0u) << r.body;
  EXPECT_NE(r.body.find("--read-timeout"), std::string::npos) << r.body;
  EXPECT_TRUE(c.closed_by_peer(3000));
  // A body that stops short of its Content-Length: 408 too.
  Connection b(s.port());
  b.send(
      "POST /stream HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 100\r\n\r\n{\"prompt\":");
  EXPECT_EQ(b.read_response().status, 408);
  EXPECT_TRUE(b.closed_by_peer(3000));
  // An idle keep-alive connection (a request answered, nothing pending) is closed, no response.
  Connection k(s.port());
  k.send_request("GET", "/health", "");
  EXPECT_EQ(k.read_response().status, 200);
  EXPECT_TRUE(k.closed_by_peer(3000));
  EXPECT_EQ(k.raw(), "");
  // Nothing ever sent: closed too.
  Connection idle(s.port());
  EXPECT_TRUE(idle.closed_by_peer(3000));
}

TEST(HttpServer, AClientThatLeavesAStreamCancelsItsJob) {
  TransportServer s;
  {
    Connection c(s.port());
    c.send_request("POST", "/running", "{}");
    ASSERT_TRUE(c.read_until("\r\n\r\n"));  // the stream's head
    EXPECT_EQ(s.server.active_generations(), 1u);
  }
  const std::shared_ptr<FakeJob> job = s.routes.running();
  ASSERT_NE(job, nullptr);
  EXPECT_TRUE(eventually([&] { return job->cancelled(); }));
  EXPECT_TRUE(eventually([&] { return s.server.active_generations() == 0; }));
}

// What escapes the handler becomes the handler's failure response (the connection closes); what
// escapes a stream's job once its head is out ends the stream with the failure's tail. The server
// goes on serving.
TEST(HttpServer, ExceptionsFromTheHandlerOrAJobEndOnlyTheirRequest) {
  TransportServer s;
  const auto thrown = request(s.port(), "POST", "/throw", "{}");
  EXPECT_EQ(thrown.status, 500);
  EXPECT_EQ(thrown.body, "500 failed: boom\n");
  EXPECT_EQ(thrown.header("connection"), "close");

  Connection c(s.port());
  c.send_request("POST", "/running", "{}");
  ASSERT_TRUE(c.read_until("\r\n\r\n"));
  std::shared_ptr<FakeJob> job;
  ASSERT_TRUE(eventually([&] { return (job = s.routes.running()) && job->started(); }));
  job->fail("lost");
  const auto r = c.read_response();
  EXPECT_EQ(r.status, 200);  // the head went out before the failure
  EXPECT_EQ(r.body, "data: failed: lost\n\n");
  EXPECT_TRUE(job->cancelled());
  EXPECT_EQ(request(s.port(), "GET", "/health").status, 200);
}

}  // namespace
}  // namespace llm
