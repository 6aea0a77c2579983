#include "sim/capacity/capacity_signals.h"

#include <algorithm>
#include <map>

#include "core/request.h"

namespace llm {
namespace {

constexpr Nanos kHour = 3'600'000'000'000;

bool grows(double early, double late, double factor, double minimum) {
  return late > early * factor && late - early >= minimum;
}

}  // namespace

TimeWindow busiest_hour(const Trace& trace) {
  TimeWindow w;
  if (trace.requests.empty()) return w;
  const Nanos first = trace.requests.front().arrival_ns;
  const Nanos last = trace.requests.back().arrival_ns;
  if (last - first < kHour) {
    w.begin = first;
    w.end = last + 1;
    w.arrivals = static_cast<int64_t>(trace.requests.size());
    w.whole_trace = true;
    return w;
  }
  std::map<int64_t, int64_t> per_hour;
  for (const TraceRequest& r : trace.requests) ++per_hour[r.arrival_ns / kHour];
  int64_t best_hour = 0;
  for (const auto& [hour, count] : per_hour) {
    if (count > w.arrivals) {
      w.arrivals = count;
      best_hour = hour;
    }
  }
  w.begin = best_hour * kHour;
  w.end = w.begin + kHour;
  return w;
}

BusyWindowObserver::BusyWindowObserver(const TimeWindow& window)
    : window_(window), middle_(window.begin + (window.end - window.begin) / 2) {
  figures_.window = window;
}

BusyWindowObserver::HalfSums* BusyWindowObserver::half(Nanos time) {
  if (time < window_.begin || time >= window_.end) return nullptr;
  return time < middle_ ? &early_ : &late_;
}

void BusyWindowObserver::on_token(const Request& request, Nanos time, Nanos itl_ns) {
  HalfSums* h = half(time);
  if (!h) return;
  ++figures_.output_tokens;
  if (itl_ns == kNoTime) {
    ++h->first_tokens;
    h->prefill_s += static_cast<double>(time - request.timeline.scheduled) * 1e-9;
    h->prompt_tokens += static_cast<double>(request.prompt_len);
    h->cached_tokens += static_cast<double>(std::max<int64_t>(0, request.num_cached_tokens));
  } else {
    ++h->itl_samples;
    h->itl_s += static_cast<double>(itl_ns) * 1e-9;
  }
}

void BusyWindowObserver::on_step(const StepStats& stats) {
  HalfSums* h = half(stats.end);
  if (!h) return;
  h->waiting_ns +=
      static_cast<double>(stats.num_waiting) * static_cast<double>(stats.end - stats.start);
  figures_.peak_kv_usage = std::max(figures_.peak_kv_usage, stats.kv_usage);
  figures_.preemptions += stats.num_preempted;
  figures_.peak_waiting = std::max(figures_.peak_waiting, stats.num_waiting);
}

WindowFigures BusyWindowObserver::figures() const {
  WindowFigures f = figures_;
  const double half_ns = static_cast<double>(middle_ - window_.begin);
  const double second_ns = static_cast<double>(window_.end - middle_);
  auto finish = [](const HalfSums& s, double length_ns) {
    HalfFigures h;
    h.mean_waiting = length_ns > 0 ? s.waiting_ns / length_ns : 0;
    h.first_tokens = s.first_tokens;
    h.itl_samples = s.itl_samples;
    if (s.first_tokens > 0) {
      h.mean_prefill_s = s.prefill_s / static_cast<double>(s.first_tokens);
      h.mean_prompt_len = s.prompt_tokens / static_cast<double>(s.first_tokens);
    }
    if (s.prompt_tokens > 0) h.prefix_hit_rate = s.cached_tokens / s.prompt_tokens;
    if (s.itl_samples > 0) h.mean_itl_s = s.itl_s / static_cast<double>(s.itl_samples);
    return h;
  };
  f.early = finish(early_, half_ns);
  f.late = finish(late_, second_ns);
  return f;
}

CapacitySignal classify_capacity(const WindowFigures& f) {
  CapacitySignal s;
  s.queue_growing = grows(f.early.mean_waiting, f.late.mean_waiting, kQueueGrowth, kQueueGrowthMin);
  s.kv_full = f.peak_kv_usage >= kKvFull;
  s.prefill_rising =
      f.early.first_tokens > 0 && f.late.first_tokens > 0 &&
      grows(f.early.mean_prefill_s, f.late.mean_prefill_s, kLatencyGrowth, kLatencyGrowthMin);
  s.itl_rising = f.early.itl_samples > 0 && f.late.itl_samples > 0 &&
                 grows(f.early.mean_itl_s, f.late.mean_itl_s, kLatencyGrowth, kLatencyGrowthMin);
  if (s.queue_growing) {
    s.pattern = s.kv_full ? CapacityPattern::kKvBound : CapacityPattern::kComputeBound;
  } else if (s.prefill_rising) {
    s.pattern = CapacityPattern::kPrefillHeavy;
  } else if (s.itl_rising) {
    s.pattern = CapacityPattern::kDecodeBound;
  }
  return s;
}

const char* capacity_pattern_name(CapacityPattern pattern) {
  switch (pattern) {
    case CapacityPattern::kKvBound:
      return "kv-bound";
    case CapacityPattern::kComputeBound:
      return "compute-bound";
    case CapacityPattern::kPrefillHeavy:
      return "prefill-heavy";
    case CapacityPattern::kDecodeBound:
      return "decode-bound";
    case CapacityPattern::kHeadroom:
      return "headroom";
  }
  return "?";
}

std::string capacity_pattern_reading(CapacityPattern pattern) {
  switch (pattern) {
    case CapacityPattern::kKvBound:
      return "the waiting queue grows with the KV cache full (and preemptions)";
    case CapacityPattern::kComputeBound:
      return "the waiting queue grows with the KV cache not full";
    case CapacityPattern::kPrefillHeavy:
      return "prefill time rises with a flat queue";
    case CapacityPattern::kDecodeBound:
      return "inter-token latency rises with a flat queue (decode-bound)";
    case CapacityPattern::kHeadroom:
      return "no queue growth, full KV cache or rising latency: headroom";
  }
  return "";
}

std::string capacity_pattern_response(CapacityPattern pattern) {
  switch (pattern) {
    case CapacityPattern::kKvBound:
      return "more KV memory or GPUs: an fp8 KV cache (--kv-cache-dtype fp8) holds twice the "
             "tokens, a higher --gpu-memory-utilization gives the cache more room (check your "
             "evaluation set first); then more GPUs, sized from peak token throughput and peak "
             "running plus waiting requests";
    case CapacityPattern::kComputeBound:
      return "more compute: another GPU (data or tensor parallel); KV memory is not the limit";
    case CapacityPattern::kPrefillHeavy:
      return "more prefill work, not missing capacity: look at prompt lengths and the prefix-cache "
             "hit rate before adding a GPU";
    case CapacityPattern::kDecodeBound:
      return "decode-bound: plan the next GPU if this shows at the peak hour on most working days";
    case CapacityPattern::kHeadroom:
      return "none needed: the busiest hour has headroom";
  }
  return "";
}

}  // namespace llm
