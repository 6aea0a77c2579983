// What OpenTelemetry tracing (--otlp-traces-endpoint) adds to one request's server CPU, as the
// per-request metrics benchmark measures its flag: the added work, which is deterministic.
// On the request path: BM_TracedRequest/P starts the span identity (P=1: from a caller's
// traceparent and tracestate, parsed and validated; P=0: a new trace), builds the llm_request
// span from the request's timeline (23 attributes) and submits it to a real SpanExporter (whose
// thread sleeps meanwhile; every 2048 requests, untimed, a fresh exporter replaces it, so no
// submit takes the cheaper path of a full queue). On the exporter's thread, per span:
// BM_EncodeBatch/512/F encodes a 512-span ExportTraceServiceRequest (F=0 protobuf, F=1 JSON),
// BM_GzipBatch compresses the protobuf one. Goal of issue 14: at most 3% more server CPU per
// request at 256 concurrent streams on the sim backend; docs/tracing.md compares the sum with a
// request's whole CPU cost.
#include <arpa/inet.h>
#include <benchmark/benchmark.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "server/tracing/span_exporter.h"
#include "telemetry/gzip.h"
#include "telemetry/otlp_json.h"
#include "telemetry/otlp_protobuf.h"
#include "telemetry/request_span.h"

namespace {

llm::RequestSpanInput sample_input(int64_t tokens) {
  llm::RequestSpanInput in;
  in.request_id = "chatcmpl-0123456789abcdef0123456789abcdef";
  in.request_model = "Llama-3.1-8B";
  in.response_model = "Llama-3.1-8B";
  in.max_tokens = tokens;
  in.temperature = 0.7;
  in.top_p = 0.95;
  in.prompt_tokens = 32;
  in.completion_tokens = tokens;
  in.cached_tokens = 16;
  in.finish_reasons = {"length"};
  llm::Timeline& t = in.timeline;
  t.arrival = 1'000'000;
  t.queued = 1'050'000;
  t.scheduled = 2'345'678;
  t.first_token = 9'876'543;
  t.last_token = t.first_token + (tokens - 1) * 1'234'567;
  t.finished = t.last_token + 1000;
  in.end = t.finished + 5000;
  return in;
}

int closed_loopback_port() {
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

void BM_TracedRequest(benchmark::State& state) {
  const bool with_parent = state.range(0) != 0;
  llm::OtlpSettings settings;
  settings.host = "127.0.0.1";
  settings.port = closed_loopback_port();
  settings.schedule_delay_ms = 60'000;  // the thread sleeps: submit() is measured alone
  settings.max_queue_size = 4096;
  settings.max_batch_size = 4096;
  constexpr int kPerExporter = 2048;  // then a fresh exporter, untimed (its queue is dropped)
  auto make_exporter = [&] {
    return std::make_unique<llm::SpanExporter>(settings, llm::TraceResource{}, nullptr,
                                               [](const std::string&) {});
  };
  auto exporter = make_exporter();
  llm::SpanIdSource ids(42);
  const std::string traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  const std::string tracestate = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
  llm::RequestSpanInput in = sample_input(256);
  std::vector<llm::Span> spans;
  int submitted = 0;
  uint64_t dropped = 0;
  for (auto _ : state) {
    const std::optional<llm::TraceParent> parent =
        with_parent ? llm::parse_traceparent(traceparent) : std::nullopt;
    in.identity = llm::start_span_identity(
        parent, parent ? llm::valid_tracestate(tracestate) : std::string(), ids);
    llm::build_request_spans(in, 1'767'225'600'000'000'000, nullptr, ids, spans);
    exporter->submit(spans);
    if (++submitted == kPerExporter) {
      state.PauseTiming();
      dropped += exporter->dropped();
      exporter->shutdown(std::chrono::milliseconds(0));
      exporter = make_exporter();
      submitted = 0;
      state.ResumeTiming();
    }
  }
  dropped += exporter->dropped();
  state.counters["dropped_while_timed"] = static_cast<double>(dropped);
}
BENCHMARK(BM_TracedRequest)->Arg(0)->Arg(1);

std::vector<llm::Span> sample_batch(int n) {
  llm::SpanIdSource ids(7);
  std::vector<llm::Span> spans;
  for (int i = 0; i < n; ++i) {
    llm::RequestSpanInput in = sample_input(256);
    in.identity = llm::start_span_identity(std::nullopt, "", ids);
    llm::build_request_spans(in, 1'767'225'600'000'000'000, nullptr, ids, spans);
  }
  return spans;
}

llm::TraceResource sample_resource() {
  llm::TraceResource r;
  r.attributes = {{"service.name", std::string("llmserve")}};
  return r;
}

void BM_EncodeBatch(benchmark::State& state) {
  const std::vector<llm::Span> spans = sample_batch(static_cast<int>(state.range(0)));
  const bool json = state.range(1) != 0;
  const llm::TraceResource resource = sample_resource();
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string body =
        json ? llm::encode_otlp_json(resource, spans) : llm::encode_otlp_protobuf(resource, spans);
    bytes = body.size();
    benchmark::DoNotOptimize(body.data());
  }
  state.counters["bytes_per_span"] = static_cast<double>(bytes) / state.range(0);
  state.counters["ns_per_span"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * state.range(0),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_EncodeBatch)->Args({512, 0})->Args({512, 1});

void BM_GzipBatch(benchmark::State& state) {
  const std::string body =
      llm::encode_otlp_protobuf(sample_resource(), sample_batch(static_cast<int>(state.range(0))));
  size_t bytes = 0;
  for (auto _ : state) {
    const std::string z = llm::gzip_compress(body);
    bytes = z.size();
    benchmark::DoNotOptimize(z.data());
  }
  state.counters["ratio"] = static_cast<double>(body.size()) / static_cast<double>(bytes);
  state.counters["ns_per_span"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * state.range(0),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_GzipBatch)->Arg(512);

}  // namespace
