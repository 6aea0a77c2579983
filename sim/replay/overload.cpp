#include "sim/replay/overload.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/clock.h"

namespace llm {
namespace {

// Adds `waiting` x the part of [from, to) inside the window to `area`'s buckets.
void add_area(std::vector<double>& area, Nanos begin, Nanos end, double bucket_ns, Nanos from,
              Nanos to, double waiting) {
  from = std::max(from, begin);
  to = std::min(to, end);
  if (to <= from || waiting == 0) return;
  const int last = static_cast<int>(area.size()) - 1;
  double at = static_cast<double>(from - begin);
  const double stop = static_cast<double>(to - begin);
  while (at < stop) {
    int b = std::min(last, static_cast<int>(at / bucket_ns));
    double bucket_end = b == last ? stop : std::min(stop, (b + 1) * bucket_ns);
    if (bucket_end <= at) {  // `at` rounded onto bucket b's end: it is in the next one
      b = std::min(last, b + 1);
      bucket_end = b == last ? stop : std::min(stop, (b + 1) * bucket_ns);
    }
    area[static_cast<size_t>(b)] += waiting * (bucket_end - at);
    at = bucket_end;
  }
}

// The mean of W over [from, to), from bucket integrals (a bucket counted by its overlap).
double mean_of(const std::vector<double>& area, Nanos begin, double bucket_ns, Nanos from,
               Nanos to) {
  if (to <= from) return 0;
  const double lo = static_cast<double>(from - begin);
  const double hi = static_cast<double>(to - begin);
  double sum = 0;
  for (size_t b = 0; b < area.size(); ++b) {
    const double b_lo = static_cast<double>(b) * bucket_ns;
    const double b_hi = b_lo + bucket_ns;
    const double overlap = std::min(hi, b_hi) - std::max(lo, b_lo);
    if (overlap > 0) sum += area[b] * overlap / bucket_ns;
  }
  return sum / (hi - lo);
}

std::string number_text(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

OverloadObserver::OverloadObserver(Nanos first_arrival, Nanos last_arrival)
    : begin_(first_arrival),
      end_(std::max(first_arrival, last_arrival)),
      bucket_ns_(std::max(1.0, static_cast<double>(end_ - begin_) / kOverloadBuckets)),
      area_(kOverloadBuckets, 0.0),
      last_time_(first_arrival),
      drained_at_(first_arrival) {}

void OverloadObserver::on_step(const StepStats& stats) {
  if (stats.end > last_time_) {
    add_area(area_, begin_, end_, bucket_ns_, last_time_, stats.end, last_waiting_);
    if (last_time_ <= end_ && stats.end > end_) {
      waiting_at_end_ = last_waiting_;
      end_seen_ = true;
    }
    last_time_ = stats.end;
  }
  last_waiting_ = stats.num_waiting;
  if (stats.num_waiting == 0 && stats.end <= end_) drained_at_ = std::max(drained_at_, stats.end);
}

OverloadFigures OverloadObserver::figures() const {
  OverloadFigures f;
  std::vector<double> area = area_;
  if (!end_seen_) {  // the last step ended before the last arrival: W held since
    add_area(area, begin_, end_, bucket_ns_, last_time_, end_, last_waiting_);
  }
  f.waiting_at_end = end_seen_ ? waiting_at_end_ : last_waiting_;
  const Nanos window = end_ - begin_;
  const Nanos run = end_ - drained_at_;
  if (window <= 0 || static_cast<double>(run) < kOverloadMinShare * static_cast<double>(window)) {
    return f;
  }
  const Nanos middle = drained_at_ + run / 2;
  f.early_mean = mean_of(area, begin_, bucket_ns_, drained_at_, middle);
  f.late_mean = mean_of(area, begin_, bucket_ns_, middle, end_);
  if (f.late_mean >= kOverloadGrowth * f.early_mean &&
      f.late_mean - f.early_mean >= kOverloadMinGrowth) {
    f.unstable = true;
    f.since_s = nanos_to_seconds(drained_at_);
    f.growth_per_s = static_cast<double>(f.waiting_at_end) / nanos_to_seconds(run);
  }
  return f;
}

OverloadFigures combine_overload(const std::vector<OverloadFigures>& engines) {
  OverloadFigures all;
  for (const OverloadFigures& e : engines) {
    all.waiting_at_end += e.waiting_at_end;
    if (!e.unstable) continue;
    all.since_s = all.unstable ? std::min(all.since_s, e.since_s) : e.since_s;
    all.unstable = true;
    all.early_mean += e.early_mean;
    all.late_mean += e.late_mean;
    all.growth_per_s += e.growth_per_s;
  }
  return all;
}

std::string describe_overload(const OverloadFigures& f) {
  if (!f.unstable) return "stable: no engine's waiting queue grew without draining";
  return "UNSTABLE from " + number_text("%.1f", f.since_s) +
         " s: the waiting queue grew without draining until the last arrival (" +
         std::to_string(f.waiting_at_end) + " waiting then, +" +
         number_text("%.3g", f.growth_per_s) + "/s)";
}

}  // namespace llm
