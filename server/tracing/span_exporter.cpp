#include "server/tracing/span_exporter.h"

#include <pthread.h>

#include <cstdio>

#include "server/tracing/http_post.h"
#include "telemetry/gzip.h"
#include "telemetry/otlp_json.h"
#include "telemetry/otlp_protobuf.h"

namespace llm {
namespace {

using MonotonicClock = std::chrono::steady_clock;
constexpr auto kLogInterval = std::chrono::minutes(1);

}  // namespace

SpanExporter::SpanExporter(OtlpSettings settings, TraceResource resource,
                           prometheus::Registry* registry, LogFn log)
    : settings_(std::move(settings)), resource_(std::move(resource)), log_(std::move(log)) {
  if (!log_) {
    log_ = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  }
  http_headers_ = settings_.headers;
  http_headers_.emplace_back("Content-Type",
                             settings_.json ? "application/json" : "application/x-protobuf");
  if (settings_.gzip) http_headers_.emplace_back("Content-Encoding", "gzip");
  if (registry) {
    dropped_metric_ = &prometheus::BuildCounter()
                           .Name("llmserve:otlp_spans_dropped")  // exposed with _total
                           .Help(
                               "Spans not delivered to the OTLP endpoint: the export queue was "
                               "full, or the export failed or was refused.")
                           .Register(*registry)
                           .Add({});
  }
  last_log_ = MonotonicClock::now() - kLogInterval;
  thread_ = std::thread([this] { loop(); });
  pthread_setname_np(thread_.native_handle(), "otlp-exporter");  // for top, /proc and perf
}

SpanExporter::~SpanExporter() { shutdown(std::chrono::seconds(1)); }

void SpanExporter::submit(std::vector<Span>& spans) {
  size_t lost = 0;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Span& s : spans) {
      if (stopping_ || static_cast<int64_t>(queue_.size()) >= settings_.max_queue_size) {
        ++lost;
      } else {
        queue_.push_back(std::move(s));
      }
    }
    wake = static_cast<int64_t>(queue_.size()) >= settings_.max_batch_size;
  }
  spans.clear();
  if (lost) {
    dropped_ += lost;
    queue_drops_ += lost;
    if (dropped_metric_) dropped_metric_->Increment(static_cast<double>(lost));
  }
  if (wake) wake_.notify_one();
}

void SpanExporter::shutdown(std::chrono::milliseconds deadline) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!stopping_) {
      stopping_ = true;
      stop_deadline_ = MonotonicClock::now() + deadline;
      stop_deadline_ns_ =
          std::chrono::duration_cast<std::chrono::nanoseconds>(stop_deadline_.time_since_epoch())
              .count();
    }
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void SpanExporter::loop() {
  const auto delay = std::chrono::milliseconds(settings_.schedule_delay_ms);
  std::vector<Span> batch;
  while (true) {
    MonotonicClock::time_point deadline;
    bool stopping = false;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait_for(lock, delay, [this] {
        return stopping_ || static_cast<int64_t>(queue_.size()) >= settings_.max_batch_size;
      });
      stopping = stopping_;
      if (stopping && (queue_.empty() || MonotonicClock::now() >= stop_deadline_)) {
        const size_t left = queue_.size();
        queue_.clear();
        lock.unlock();
        if (left) {
          dropped_ += left;
          if (dropped_metric_) dropped_metric_->Increment(static_cast<double>(left));
          count_dropped(left, "the shutdown deadline passed");
        }
        break;
      }
      const size_t n = std::min(queue_.size(), static_cast<size_t>(settings_.max_batch_size));
      batch.assign(std::make_move_iterator(queue_.begin()),
                   std::make_move_iterator(queue_.begin() + static_cast<std::ptrdiff_t>(n)));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
      deadline = MonotonicClock::now() + std::chrono::milliseconds(settings_.export_timeout_ms);
    }
    if (const uint64_t q = queue_drops_.exchange(0)) {
      unlogged_drops_ += q;
      last_drop_reason_ = "the export queue was full";
    }
    if (!batch.empty()) export_batch(batch, deadline);
    count_dropped(0, "");  // logs pending drops once the minute has passed
  }
  if (const uint64_t q = queue_drops_.exchange(0)) {
    unlogged_drops_ += q;
    last_drop_reason_ = "the export queue was full";
  }
  if (unlogged_drops_) {
    last_log_ = MonotonicClock::now() - kLogInterval;
    count_dropped(0, "");
  }
}

void SpanExporter::export_batch(std::vector<Span>& batch, MonotonicClock::time_point deadline) {
  std::string body =
      settings_.json ? encode_otlp_json(resource_, batch) : encode_otlp_protobuf(resource_, batch);
  if (settings_.gzip) body = gzip_compress(body);
  auto current_deadline = [this, deadline] {
    const MonotonicClock::time_point stop{std::chrono::nanoseconds(stop_deadline_ns_.load())};
    return std::min(deadline, stop);
  };
  const HttpPostResult r = http_post(settings_.host, settings_.port, settings_.path, http_headers_,
                                     body, current_deadline);
  const uint64_t n = batch.size();
  batch.clear();
  if (r.status >= 200 && r.status < 300) {
    exported_ += n;
    return;
  }
  dropped_ += n;
  if (dropped_metric_) dropped_metric_->Increment(static_cast<double>(n));
  count_dropped(n, r.status ? "the endpoint answered HTTP " + std::to_string(r.status) : r.error);
}

// Exporter thread: adds `n` to the drops not yet logged and logs them when a minute has passed
// since the last line.
void SpanExporter::count_dropped(uint64_t n, const std::string& why) {
  if (n) {
    unlogged_drops_ += n;
    last_drop_reason_ = why;
  }
  if (!unlogged_drops_ || MonotonicClock::now() - last_log_ < kLogInterval) return;
  log_("llmserve: dropped " + std::to_string(unlogged_drops_) + " span(s) for " + settings_.url +
       " (last reason: " + last_drop_reason_ + "); llmserve:otlp_spans_dropped_total counts them");
  last_log_ = MonotonicClock::now();
  unlogged_drops_ = 0;
}

}  // namespace llm
