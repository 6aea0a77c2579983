#include "sim/trace/request_stream.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace llm {

const TraceRequest* WindowStream::next() {
  while (!done_) {
    const TraceRequest* r = inner_->next();
    if (!r || (end_ >= 0 && r->arrival_ns >= end_)) {
      done_ = true;  // arrivals do not decrease: nothing later is in the window
      break;
    }
    if (r->arrival_ns < start_) continue;
    current_ = *r;
    current_.arrival_ns -= start_;
    return &current_;
  }
  return nullptr;
}

const TraceRequest* StretchStream::next() {
  const TraceRequest* r = inner_->next();
  if (!r) return nullptr;
  current_ = *r;
  const double t = static_cast<double>(r->arrival_ns) / factor_;
  if (std::fabs(t) >= 9.2e18) {
    throw std::out_of_range("scale_arrivals: arrival of request " + r->id +
                            " does not fit in int64 nanoseconds after scaling");
  }
  current_.arrival_ns = std::llround(t);
  return &current_;
}

void FactsCounter::add(const TraceRequest& r) {
  if (f_.requests == 0) {
    f_.first_arrival_ns = r.arrival_ns;
  } else if (r.arrival_ns != f_.last_arrival_ns) {
    ++f_.instants;
    f_.largest = std::max(f_.largest, run_);
    if (run_ > 1) f_.in_bursts += run_;
    run_ = 0;
  }
  ++run_;
  ++f_.requests;
  f_.sequences += std::max<int64_t>(r.n, 1);
  f_.last_arrival_ns = r.arrival_ns;
}

StreamFacts FactsCounter::facts() const {
  StreamFacts f = f_;
  if (run_ > 0) {
    ++f.instants;
    f.largest = std::max(f.largest, run_);
    if (run_ > 1) f.in_bursts += run_;
  }
  return f;
}

const TraceRequest* LoopStream::next() {
  while (!done_) {
    if (!pass_) {
      const int64_t pass = passes_;
      if ((pass > 0 && period_ > (INT64_MAX - first_) / pass) ||
          first_ + pass * period_ >= until_) {
        done_ = true;
        break;
      }
      pass_ = open_();
      ++passes_;
    }
    const TraceRequest* r = pass_->next();
    const int64_t shift = (passes_ - 1) * period_;
    if (!r || r->arrival_ns + shift >= until_) {
      pass_.reset();  // this pass is over (or cut): the next one
      continue;
    }
    current_ = *r;
    current_.arrival_ns = r->arrival_ns + shift;
    if (passes_ > 1) {
      const std::string suffix = "~l" + std::to_string(passes_);
      current_.id += suffix;
      current_.cache_salt += suffix;
    }
    return &current_;
  }
  return nullptr;
}

StreamFacts scan_stream(RequestStream& stream) {
  FactsCounter counter;
  while (const TraceRequest* r = stream.next()) counter.add(*r);
  return counter.facts();
}

Trace collect_stream(RequestStream& stream) {
  Trace trace;
  while (const TraceRequest* r = stream.next()) trace.requests.push_back(*r);
  return trace;
}

}  // namespace llm
