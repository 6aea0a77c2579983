#include "server/tracing/span_exporter.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "server/testing/test_http_client.h"

namespace llm {
namespace {

using testing::eventually;

using std::chrono::milliseconds;

// A loopback listener that accepts connections and, per connection, reads the request and
// answers `status` after `delay` (or never, when `status` is 0). Counts requests.
class TestReceiver {
 public:
  TestReceiver(int status, milliseconds delay) : status_(status), delay_(delay) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    listen(fd_, 16);
    thread_ = std::thread([this] { serve(); });
  }
  ~TestReceiver() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  int requests() const { return requests_.load(); }
  std::string last_request() {
    std::lock_guard<std::mutex> lock(mutex_);
    return last_;
  }

 private:
  void serve() {
    while (!stop_) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string request;
      char buf[4096];
      // Head, then Content-Length bytes of body.
      while (true) {
        const ssize_t n = recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        request.append(buf, static_cast<size_t>(n));
        const size_t head_end = request.find("\r\n\r\n");
        if (head_end == std::string::npos) continue;
        const size_t cl = request.find("Content-Length: ");
        const size_t length = std::stoul(request.substr(cl + 16));
        if (request.size() >= head_end + 4 + length) break;
      }
      ++requests_;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        last_ = request;
      }
      std::this_thread::sleep_for(delay_);
      if (status_) {
        const std::string r =
            "HTTP/1.1 " + std::to_string(status_) + " X\r\nContent-Length: 0\r\n\r\n";
        send(c, r.data(), r.size(), MSG_NOSIGNAL);
      }
      close(c);
    }
  }
  int status_;
  milliseconds delay_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  std::mutex mutex_;
  std::string last_;
  std::thread thread_;
};

OtlpSettings settings_for(int port) {
  OtlpSettings s;
  s.host = "127.0.0.1";
  s.port = port;
  s.url = "http://127.0.0.1:" + std::to_string(port) + "/v1/traces";
  s.schedule_delay_ms = 10;
  s.export_timeout_ms = 2000;
  return s;
}

std::vector<Span> spans(int n) {
  std::vector<Span> out(static_cast<size_t>(n));
  for (Span& s : out) {
    s.trace_id[0] = 1;
    s.span_id[0] = 1;
    s.name = "llm_request";
  }
  return out;
}

int closed_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

TEST(SpanExporter, PostsBatchesToTheReceiver) {
  TestReceiver receiver(200, milliseconds(0));
  OtlpSettings s = settings_for(receiver.port());
  s.headers = {{"x-api-key", "k"}};
  SpanExporter exporter(s, TraceResource{}, nullptr);
  auto batch = spans(3);
  exporter.submit(batch);
  EXPECT_TRUE(batch.empty());
  ASSERT_TRUE(eventually([&] { return exporter.exported() == 3; }, 10'000));
  EXPECT_EQ(exporter.dropped(), 0u);
  const std::string request = receiver.last_request();
  EXPECT_EQ(request.rfind("POST /v1/traces HTTP/1.1\r\n", 0), 0u) << request;
  EXPECT_NE(request.find("Content-Type: application/x-protobuf\r\n"), std::string::npos);
  EXPECT_NE(request.find("x-api-key: k\r\n"), std::string::npos);
  EXPECT_NE(request.find("llm_request"), std::string::npos);
}

TEST(SpanExporter, ADeadCollectorNeverBlocksSubmitAndCountsTheDrops) {
  prometheus::Registry registry;
  std::vector<std::string> logs;
  std::mutex logs_mutex;
  SpanExporter exporter(settings_for(closed_port()), TraceResource{}, &registry,
                        [&](const std::string& line) {
                          std::lock_guard<std::mutex> lock(logs_mutex);
                          logs.push_back(line);
                        });
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 20; ++i) {
    auto batch = spans(1);
    exporter.submit(batch);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(50));
  ASSERT_TRUE(eventually([&] { return exporter.dropped() == 20; }, 10'000));
  exporter.shutdown(milliseconds(100));
  const auto families = registry.Collect();
  ASSERT_EQ(families.size(), 1u);
  EXPECT_EQ(families[0].name, "llmserve:otlp_spans_dropped");  // exposed with _total
  EXPECT_EQ(families[0].metric.at(0).counter.value, 20.0);
  // One log line for the whole burst (at most one a minute).
  std::lock_guard<std::mutex> lock(logs_mutex);
  ASSERT_EQ(logs.size(), 1u);
  EXPECT_NE(logs[0].find("dropped"), std::string::npos);
  EXPECT_NE(logs[0].find("connect"), std::string::npos) << logs[0];
}

TEST(SpanExporter, AFullQueueDropsAndARefusingCollectorCounts) {
  TestReceiver receiver(503, milliseconds(0));
  OtlpSettings s = settings_for(receiver.port());
  s.max_queue_size = 4;
  s.max_batch_size = 4;
  s.schedule_delay_ms = 60'000;  // nothing leaves before the queue is full
  SpanExporter exporter(s, TraceResource{}, nullptr, [](const std::string&) {});
  auto batch = spans(10);
  exporter.submit(batch);
  EXPECT_GE(exporter.dropped(), 6u);
  ASSERT_TRUE(
      eventually([&] { return exporter.dropped() == 10; }, 10'000));  // the 503 loses the rest
  EXPECT_EQ(exporter.exported(), 0u);
}

TEST(SpanExporter, ShutdownFlushesAndKeepsToItsDeadlineWithASlowCollector) {
  {
    TestReceiver receiver(200, milliseconds(0));
    OtlpSettings s = settings_for(receiver.port());
    s.schedule_delay_ms = 60'000;
    SpanExporter exporter(s, TraceResource{}, nullptr);
    auto batch = spans(5);
    exporter.submit(batch);
    exporter.shutdown(milliseconds(2000));
    EXPECT_EQ(exporter.exported(), 5u) << "shutdown flushes what is queued";
  }
  TestReceiver slow(0, milliseconds(1000));  // reads, never answers
  OtlpSettings s = settings_for(slow.port());
  s.export_timeout_ms = 30'000;
  SpanExporter exporter(s, TraceResource{}, nullptr, [](const std::string&) {});
  auto batch = spans(2);
  exporter.submit(batch);
  ASSERT_TRUE(eventually([&] { return slow.requests() == 1; }, 10'000));
  const auto t0 = std::chrono::steady_clock::now();
  exporter.shutdown(milliseconds(200));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(1000));
  EXPECT_EQ(exporter.dropped(), 2u);
}

}  // namespace
}  // namespace llm
