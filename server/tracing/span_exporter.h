// OTLP/HTTP span export on its own thread, as OpenTelemetry's batch span processor: submit()
// only appends to a bounded queue (a slow or dead collector never slows a request); the thread
// sends a batch when max_batch_size spans wait or schedule_delay_ms has passed, encoded as
// protobuf or JSON, gzip-compressed when asked, each export under export_timeout_ms.
// Spans lost (queue full, or an export that failed or was refused) are counted in
// `llmserve:otlp_spans_dropped_total` and reported on stderr at most once a minute.
// shutdown() exports what is queued, then stops, within its deadline.
// Thread-safety: submit(), counts and shutdown() may be called from any thread.
#pragma once

#include <prometheus/counter.h>
#include <prometheus/registry.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "server/tracing/otlp_settings.h"
#include "telemetry/span.h"

namespace llm {

class SpanExporter {
 public:
  using LogFn = std::function<void(const std::string& line)>;
  // `registry` may be null (no metric); `log` defaults to stderr.
  SpanExporter(OtlpSettings settings, TraceResource resource, prometheus::Registry* registry,
               LogFn log = nullptr);
  ~SpanExporter();  // shutdown with a 1 s deadline unless called before
  SpanExporter(const SpanExporter&) = delete;
  SpanExporter& operator=(const SpanExporter&) = delete;

  // Queues the spans (moved from); those that do not fit are dropped and counted.
  void submit(std::vector<Span>& spans);
  // Exports what is queued within `deadline` (what is left then is dropped), stops the thread.
  void shutdown(std::chrono::milliseconds deadline);

  uint64_t exported() const { return exported_.load(); }
  uint64_t dropped() const { return dropped_.load(); }

 private:
  void loop();
  void export_batch(std::vector<Span>& batch, std::chrono::steady_clock::time_point deadline);
  void count_dropped(uint64_t n, const std::string& why);

  // Constant after construction.
  const OtlpSettings settings_;
  const TraceResource resource_;
  std::vector<std::pair<std::string, std::string>> http_headers_;
  prometheus::Counter* dropped_metric_ = nullptr;
  LogFn log_;

  // Guarded by mutex_; wake_ signals a full batch or stopping_.
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Span> queue_;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point stop_deadline_{};
  // stop_deadline_ for the export in flight (steady-clock ns; max until shutdown()).
  std::atomic<int64_t> stop_deadline_ns_{INT64_MAX};

  // Exporter thread only.
  std::chrono::steady_clock::time_point last_log_{};
  uint64_t unlogged_drops_ = 0;
  std::string last_drop_reason_;

  std::atomic<uint64_t> exported_{0};
  std::atomic<uint64_t> dropped_{0};
  std::atomic<uint64_t> queue_drops_{0};  // counted by submit(), logged by the thread
  std::thread thread_;
};

}  // namespace llm
