#include "sim/replay/replay_input.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

#include "sim/trace/trace_stream.h"

namespace llm {

ReplayInput::ReplayInput(const ReplayOptions& o)
    : options_(o), path_(o.trace_path), name_(o.trace_path) {
  if (path_ == "-") {
    const char* tmp = std::getenv("TMPDIR");
    spooled_ = spool_to_file(std::cin, tmp && *tmp ? tmp : "/tmp");
    path_ = spooled_;
    name_ = "stdin";
    format_ = sniff_trace_format(path_, name_);
  }
  if (o.sort_arrivals) {
    sorted_ = std::make_unique<ArrivalSorter>(static_cast<size_t>(o.sort_in_memory));
    std::unique_ptr<RequestStream> rows = open_trace_stream(path_, false, format_, name_);
    while (const TraceRequest* r = rows->next()) sorted_->add(*r);
    sorted_->finish();
    const std::unique_ptr<RequestStream> sorted = sorted_->open();
    const TraceRequest* first = sorted->next();
    sorted_first_ = first ? first->arrival_ns : 0;
  }
  // One pass: the trace's own figures (bursts) before scaling, the replayed ones after (a
  // sample needs the trace's figures first: a second pass).
  FactsCounter before;
  const bool sample = o.load_scaling == LoadScalingMode::kSample;
  std::unique_ptr<RequestStream> s = std::make_unique<CountingStream>(open_trace(), before);
  if (sample) {
    source_ = scan_stream(*s);
    s = open_scaled();
  } else if (o.arrival_rate_scale != 1.0) {
    s = std::make_unique<StretchStream>(std::move(s), o.arrival_rate_scale);
  }
  facts = scan_stream(*s);
  const StreamFacts trace = before.facts();
  load = LoadScalingInfo{};
  load.mode = o.load_scaling;
  load.factor = o.arrival_rate_scale;
  load.trace_requests = trace.requests;
  load.replayed_requests = facts.requests;
  load.bursts = {trace.requests, trace.instants, trace.largest, trace.in_bursts};
  if (sample) {
    load.copies = static_cast<int64_t>(std::floor(o.arrival_rate_scale));
    load.loop_to_ns = o.loop_to_ns;
  }
  // As scale_load: a sample that kept no request is not looped.
  if (o.loop_to_ns > 0 && (!sample || facts.requests > 0)) {
    period_ = trace_period(facts);
    if (period_ <= 0) {
      throw std::invalid_argument(
          "--loop-to: the trace's requests all arrive at one instant; there is no period to "
          "repeat");
    }
    first_ = facts.first_arrival_ns;
    LoopStream loop([this] { return open_scaled(); }, first_, period_, o.loop_to_ns);
    facts = scan_stream(loop);
    load.loop_to_ns = o.loop_to_ns;
    load.loops = loop.passes();
    load.replayed_requests = facts.requests;
  }
}

ReplayInput::~ReplayInput() {
  if (!spooled_.empty()) std::remove(spooled_.c_str());
}

std::unique_ptr<RequestStream> ReplayInput::open_trace() const {
  std::unique_ptr<RequestStream> s;
  if (sorted_) {
    s = sorted_->open();
    // Azure rows are timed from the first row: an earlier one becomes the start (a window from
    // that arrival on, with no end, moves every arrival back by it).
    if (sorted_first_ < 0) s = std::make_unique<WindowStream>(std::move(s), sorted_first_, -1);
  } else {
    s = open_trace_stream(path_, true, format_, name_);
  }
  if (options_.window_start_ns > 0 || options_.window_end_ns >= 0) {
    s = std::make_unique<WindowStream>(std::move(s), options_.window_start_ns,
                                       options_.window_end_ns);
  }
  return s;
}

std::unique_ptr<RequestStream> ReplayInput::open_scaled() const {
  if (options_.load_scaling == LoadScalingMode::kSample) {
    return std::make_unique<SampledStream>([this] { return open_trace(); }, source_,
                                           options_.arrival_rate_scale, options_.seed);
  }
  std::unique_ptr<RequestStream> s = open_trace();
  if (options_.arrival_rate_scale != 1.0) {
    s = std::make_unique<StretchStream>(std::move(s), options_.arrival_rate_scale);
  }
  return s;
}

std::unique_ptr<RequestStream> ReplayInput::open() const {
  if (options_.loop_to_ns > 0 && period_ > 0) {
    return std::make_unique<LoopStream>([this] { return open_scaled(); }, first_, period_,
                                        options_.loop_to_ns);
  }
  return open_scaled();
}

}  // namespace llm
