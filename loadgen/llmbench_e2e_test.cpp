// llmbench against the in-process fake server on 127.0.0.1: measured latencies, error handling,
// concurrency limits.
#include <gtest/gtest.h>

#include <chrono>
#include <optional>

#include "loadgen/bench.h"
#include "loadgen/fake_server.h"

namespace llm::loadgen {
namespace {

using std::chrono::milliseconds;
constexpr double kMs = 1e6;

Trace make_trace(int n, int64_t gap_ns = 0, int64_t output_len = 5) {
  Trace t;
  t.source = "test";
  for (int i = 0; i < n; ++i) {
    TraceRequest r;
    r.id = std::to_string(i);
    r.arrival_ns = i * gap_ns;
    r.prompt_len = 8;
    r.output_len = output_len;
    t.requests.push_back(r);
  }
  return t;
}

BenchConfig config_for(const FakeOpenAiServer& server) {
  BenchConfig c;
  c.port = server.port();
  c.model = "fake-model";
  return c;
}

TEST(LlmbenchE2E, MeasuresTheServersTtftAndItl) {
  FakeServerOptions o;
  o.chunks = 5;
  o.first_delay = milliseconds(60);
  o.gap = milliseconds(25);
  FakeOpenAiServer server(o);
  const BenchRun run = run_benchmark(make_trace(4), config_for(server));
  ASSERT_EQ(run.report.completed, 4) << (run.report.errors.empty() ? "" : run.report.errors[0]);
  for (const auto& r : run.results) {
    EXPECT_GE(r.ttft_ns / kMs, 59);
    EXPECT_LE(r.ttft_ns / kMs, 60 + 80);  // upper bounds allow a loaded 2-core CI machine
    ASSERT_EQ(r.itl_ns.size(), 4u);
    // The server waits 25 ms after each write, so chunk k leaves at >= 60 + 25k ms. A gap the
    // client sees is 25 ms plus the lateness of its second chunk minus that of its first, so one
    // gap may look shorter when the previous chunk was read late (seen in CI: 20.8 ms under ASan);
    // the sum of the lateness-corrected gaps and the last chunk's time are strict bounds.
    int64_t gap_sum = 0;
    for (int64_t g : r.itl_ns) {
      EXPECT_GE(g / kMs, 10);
      EXPECT_LE(g / kMs, 25 + 50);
      gap_sum += g;
    }
    EXPECT_GE((gap_sum + r.ttft_ns) / kMs, 60 + 4 * 25 - 1);
    EXPECT_GE(r.e2e_ns / kMs, 60 + 4 * 25 - 1);
    EXPECT_EQ(r.output_tokens, 5);  // from usage
    EXPECT_EQ(r.content_chunks, 5);
    EXPECT_NEAR((r.e2e_ns - r.ttft_ns) / kMs, 100, 60);
  }
  EXPECT_NEAR(run.report.tpot.mean, 25, 15);
  EXPECT_NEAR(run.report.itl.median, 25, 10);
  EXPECT_EQ(run.report.total_output_tokens, 20);
}

TEST(LlmbenchE2E, ChatEndpointAndModelDiscovery) {
  FakeServerOptions o;
  o.chunks = 3;
  FakeOpenAiServer server(o);
  BenchConfig c = config_for(server);
  c.model.clear();  // ask GET /v1/models
  c.endpoint = "/v1/chat/completions";
  c.chat = true;
  c.token_ids = false;
  const BenchRun run = run_benchmark(make_trace(3), c);
  EXPECT_EQ(run.model, "fake-model");
  EXPECT_EQ(run.report.completed, 3);
  EXPECT_EQ(run.report.total_content_chunks, 9);
}

TEST(LlmbenchE2E, NonStreaming) {
  FakeOpenAiServer server(FakeServerOptions{});
  BenchConfig c = config_for(server);
  c.stream = false;
  const BenchRun run = run_benchmark(make_trace(5, 0, 16), c);
  ASSERT_EQ(run.report.completed, 5);
  for (const auto& r : run.results) {
    EXPECT_EQ(r.output_tokens, 16);  // the fake server answers max_tokens tokens
    EXPECT_EQ(r.ttft_ns, r.e2e_ns);
    EXPECT_TRUE(r.itl_ns.empty());
  }
}

TEST(LlmbenchE2E, HttpErrorsAreFailedRequests) {
  FakeServerOptions o;
  o.status = 400;
  FakeOpenAiServer server(o);
  const BenchRun run = run_benchmark(make_trace(6), config_for(server));
  EXPECT_EQ(run.report.completed, 0);
  EXPECT_EQ(run.report.failed, 6);
  ASSERT_FALSE(run.report.errors.empty());
  EXPECT_EQ(run.report.errors[0], "HTTP 400: fake error");
  EXPECT_LE(server.connections(), 6);  // error responses keep the connection alive
}

TEST(LlmbenchE2E, StreamErrorFrameIsAFailure) {
  FakeServerOptions o;
  o.chunks = 4;
  o.sse_error = true;
  FakeOpenAiServer server(o);
  const BenchRun run = run_benchmark(make_trace(2), config_for(server));
  EXPECT_EQ(run.report.failed, 2);
  ASSERT_FALSE(run.report.errors.empty());
  EXPECT_NE(run.report.errors[0].find("fake stream failure"), std::string::npos);
}

TEST(LlmbenchE2E, ConnectionClosedMidStream) {
  FakeServerOptions o;
  o.chunks = 6;
  o.gap = milliseconds(1);
  o.close_mid_stream = true;
  FakeOpenAiServer server(o);
  const BenchRun run = run_benchmark(make_trace(3), config_for(server));
  EXPECT_EQ(run.report.failed, 3);
  ASSERT_FALSE(run.report.errors.empty());
  EXPECT_NE(run.report.errors[0].find("connection lost"), std::string::npos)
      << run.report.errors[0];
}

TEST(LlmbenchE2E, KeptAliveConnectionsTheServerClosedAreRetriedOnANewOne) {
  // Three requests at once open three connections; the server closes each after 100 ms idle;
  // the fourth request, 400 ms later, finds all three closed. The client must not retry on a
  // second closed one (seen under llmsim fidelity: "no response: end of stream").
  FakeServerOptions o;
  o.chunks = 3;
  o.first_delay = milliseconds(30);
  o.idle_close = milliseconds(100);
  FakeOpenAiServer server(o);
  Trace t = make_trace(4);
  t.requests[3].arrival_ns = 400 * static_cast<int64_t>(kMs);
  const BenchRun run = run_benchmark(t, config_for(server));
  EXPECT_EQ(run.report.completed, 4) << (run.report.errors.empty() ? "" : run.report.errors[0]);
  EXPECT_EQ(server.requests(), 4);
  EXPECT_EQ(server.connections(), 4);
}

TEST(LlmbenchE2E, ConnectionRefused) {
  uint16_t port = 0;
  {
    FakeOpenAiServer server(FakeServerOptions{});
    port = server.port();
  }
  BenchConfig c;
  c.port = port;
  c.model = "m";
  const BenchRun run = run_benchmark(make_trace(3), c);
  EXPECT_EQ(run.report.failed, 3);
  ASSERT_FALSE(run.report.errors.empty());
  EXPECT_NE(run.report.errors[0].find("connect"), std::string::npos) << run.report.errors[0];
}

TEST(LlmbenchE2E, ConcurrencyNeverExceedsN) {
  FakeServerOptions o;
  o.chunks = 4;
  o.first_delay = milliseconds(2);
  o.gap = milliseconds(1);
  FakeOpenAiServer server(o);
  BenchConfig c = config_for(server);
  c.arrivals = BenchConfig::Arrivals::kClosedLoop;
  c.concurrency = 3;
  c.num_requests = 60;
  const BenchRun run = run_benchmark(make_trace(7), c);
  EXPECT_EQ(run.report.completed, 60);
  EXPECT_EQ(run.report.max_in_flight, 3);
  EXPECT_LE(server.max_in_flight(), 3);
  EXPECT_EQ(server.max_in_flight(), 3);
  EXPECT_LE(server.connections(), 3);  // keep-alive reuse
  EXPECT_EQ(server.requests(), 60);
}

TEST(LlmbenchE2E, TraceArrivalTimesAreKept) {
  FakeServerOptions o;
  o.chunks = 2;
  FakeOpenAiServer server(o);
  BenchConfig c = config_for(server);
  c.arrival_rate_scale = 2.0;  // 100 ms apart in the trace, 50 ms when sent
  const BenchRun run = run_benchmark(make_trace(4, 100'000'000), c);
  ASSERT_EQ(run.report.completed, 4);
  for (size_t i = 0; i < run.results.size(); ++i) {
    EXPECT_NEAR(run.results[i].send_ns / kMs, 50.0 * static_cast<double>(i), 10);
  }
  EXPECT_GE(run.report.duration_s, 0.15);
}

TEST(LlmbenchE2E, TimeoutFailsTheRequest) {
  FakeServerOptions o;
  o.chunks = 2;
  o.first_delay = milliseconds(2000);
  FakeOpenAiServer server(o);
  BenchConfig c = config_for(server);
  c.timeout_s = 0.1;
  const auto t0 = std::chrono::steady_clock::now();
  const BenchRun run = run_benchmark(make_trace(2), c);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(1500));
  EXPECT_EQ(run.report.failed, 2);
  ASSERT_FALSE(run.report.errors.empty());
  EXPECT_NE(run.report.errors[0].find("timeout"), std::string::npos);
}

}  // namespace
}  // namespace llm::loadgen
