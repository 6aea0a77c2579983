// A trace read one request at a time, so that a replay holds only the requests in flight
// whatever the trace's length (the readers of trace_stream.h, the synthetic generators, or a
// Trace already in memory), and the filters a replay applies on the way (a time window,
// stretched arrivals). Requests come in arrival order (non-decreasing arrival_ns).
// Thread-safety: a stream is used by one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "sim/trace/trace.h"

namespace llm {

class RequestStream {
 public:
  virtual ~RequestStream() = default;
  // The next request, or null at the end. The pointee stays valid until the next call.
  // Readers throw TraceError for bad input.
  virtual const TraceRequest* next() = 0;
};

// The requests of a Trace in memory (not copied; the trace must outlive the stream).
class TraceRequestStream final : public RequestStream {
 public:
  explicit TraceRequestStream(const Trace& trace) : trace_(trace) {}
  const TraceRequest* next() override {
    return i_ < trace_.requests.size() ? &trace_.requests[i_++] : nullptr;
  }

 private:
  const Trace& trace_;
  size_t i_ = 0;
};

// --start/--end: the requests arriving in [start_ns, end_ns) of `inner`, their arrivals moved
// back by start_ns (the window starts at 0). end_ns < 0: no end.
class WindowStream final : public RequestStream {
 public:
  WindowStream(std::unique_ptr<RequestStream> inner, int64_t start_ns, int64_t end_ns)
      : inner_(std::move(inner)), start_(start_ns), end_(end_ns) {}
  const TraceRequest* next() override;

 private:
  std::unique_ptr<RequestStream> inner_;
  int64_t start_, end_;
  bool done_ = false;
  TraceRequest current_;
};

// --arrival-rate-scale F with --load-scaling stretch: each arrival divided by F, rounded to the
// nearest nanosecond, exactly as scale_arrivals does to a Trace in memory.
class StretchStream final : public RequestStream {
 public:
  StretchStream(std::unique_ptr<RequestStream> inner, double factor)
      : inner_(std::move(inner)), factor_(factor) {}
  const TraceRequest* next() override;

 private:
  std::unique_ptr<RequestStream> inner_;
  double factor_;
  TraceRequest current_;
};

// --loop-to: the trace opened again and again, pass p shifted by p x period and renamed (id~lP+1,
// cache_salt likewise, as scale_load's loop does), until `until_ns` of arrivals, cut there.
// `first_ns` is the trace's first arrival. Gives the same requests as scale_load's loop.
class LoopStream final : public RequestStream {
 public:
  LoopStream(std::function<std::unique_ptr<RequestStream>()> open, int64_t first_ns,
             int64_t period_ns, int64_t until_ns)
      : open_(std::move(open)), first_(first_ns), period_(period_ns), until_(until_ns) {}
  const TraceRequest* next() override;
  int64_t passes() const { return passes_; }  // begun so far

 private:
  std::function<std::unique_ptr<RequestStream>()> open_;
  int64_t first_, period_, until_;
  std::unique_ptr<RequestStream> pass_;
  int64_t passes_ = 0;
  bool done_ = false;
  TraceRequest current_;
};

// What one pass over a stream found, for the replay's reports before it runs.
struct StreamFacts {
  int64_t requests = 0;
  int64_t sequences = 0;  // sum of max(n, 1)
  int64_t first_arrival_ns = 0;
  int64_t last_arrival_ns = 0;
  int64_t instants = 0;   // distinct arrival times
  int64_t largest = 0;    // most requests on one instant
  int64_t in_bursts = 0;  // requests that share their instant with another
};

// Accumulates StreamFacts over requests given in order.
class FactsCounter {
 public:
  void add(const TraceRequest& r);
  StreamFacts facts() const;  // the current instant's run included

 private:
  StreamFacts f_;
  int64_t run_ = 0;  // requests on the current instant
};

// Passes `inner`'s requests on, counting them into `counter`.
class CountingStream final : public RequestStream {
 public:
  CountingStream(std::unique_ptr<RequestStream> inner, FactsCounter& counter)
      : inner_(std::move(inner)), counter_(counter) {}
  const TraceRequest* next() override {
    const TraceRequest* r = inner_->next();
    if (r) counter_.add(*r);
    return r;
  }

 private:
  std::unique_ptr<RequestStream> inner_;
  FactsCounter& counter_;
};

// Reads the stream to its end.
StreamFacts scan_stream(RequestStream& stream);

// Reads the stream to its end into a Trace (source and format left empty).
Trace collect_stream(RequestStream& stream);

}  // namespace llm
