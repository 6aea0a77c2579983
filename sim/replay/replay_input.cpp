#include "sim/replay/replay_input.h"

#include <algorithm>
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
  streamed_ = o.load_scaling == LoadScalingMode::kStretch && !o.sort_arrivals;
  if (streamed_) {
    // One pass: the trace's own figures (bursts) before stretching, the replayed ones after.
    FactsCounter before;
    std::unique_ptr<RequestStream> s = std::make_unique<CountingStream>(open_trace(true), before);
    if (o.arrival_rate_scale != 1.0) {
      s = std::make_unique<StretchStream>(std::move(s), o.arrival_rate_scale);
    }
    facts = scan_stream(*s);
    const StreamFacts trace = before.facts();
    load = LoadScalingInfo{};
    load.factor = o.arrival_rate_scale;
    load.trace_requests = load.replayed_requests = trace.requests;
    load.bursts = {trace.requests, trace.instants, trace.largest, trace.in_bursts};
    if (o.loop_to_ns > 0) {
      // As scale_load's loop: the period is the span plus one mean gap between arrival instants.
      const int64_t span = facts.last_arrival_ns - facts.first_arrival_ns;
      period_ = facts.requests < 2 || span <= 0 ? 0 : span + span / (facts.instants - 1);
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
    return;
  }
  Trace read = collect_stream(*open_trace(!o.sort_arrivals));
  if (o.sort_arrivals) {
    std::stable_sort(
        read.requests.begin(), read.requests.end(),
        [](const TraceRequest& a, const TraceRequest& b) { return a.arrival_ns < b.arrival_ns; });
    // Azure rows are timed from the first row: an earlier one becomes the start.
    const int64_t first = read.requests.empty() ? 0 : read.requests.front().arrival_ns;
    if (first < 0) {
      for (TraceRequest& r : read.requests) r.arrival_ns -= first;
    }
    if (o.window_start_ns > 0 || o.window_end_ns >= 0) {
      WindowStream window(std::make_unique<TraceRequestStream>(read), o.window_start_ns,
                          o.window_end_ns);
      Trace cut = collect_stream(window);
      read = std::move(cut);
    }
  }
  Trace storage;
  const Trace& replayed = replayed_trace(read, o, storage, load);
  whole_ = &replayed == &read ? std::move(read) : std::move(storage);
  TraceRequestStream all(whole_);
  facts = scan_stream(all);
}

ReplayInput::~ReplayInput() {
  if (!spooled_.empty()) std::remove(spooled_.c_str());
}

std::unique_ptr<RequestStream> ReplayInput::open_trace(bool check_order) const {
  std::unique_ptr<RequestStream> s = open_trace_stream(path_, check_order, format_, name_);
  // Sorted traces are cut after sorting (the window needs arrivals in order).
  const bool window = options_.window_start_ns > 0 || options_.window_end_ns >= 0;
  if (window && check_order) {
    s = std::make_unique<WindowStream>(std::move(s), options_.window_start_ns,
                                       options_.window_end_ns);
  }
  return s;
}

std::unique_ptr<RequestStream> ReplayInput::open_scaled() const {
  std::unique_ptr<RequestStream> s = open_trace(true);
  if (options_.arrival_rate_scale != 1.0) {
    s = std::make_unique<StretchStream>(std::move(s), options_.arrival_rate_scale);
  }
  return s;
}

std::unique_ptr<RequestStream> ReplayInput::open() const {
  if (!streamed_) return std::make_unique<TraceRequestStream>(whole_);
  if (options_.loop_to_ns > 0) {
    return std::make_unique<LoopStream>([this] { return open_scaled(); }, first_, period_,
                                        options_.loop_to_ns);
  }
  return open_scaled();
}

}  // namespace llm
