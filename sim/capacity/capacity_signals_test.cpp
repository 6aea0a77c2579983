#include "sim/capacity/capacity_signals.h"

#include <gtest/gtest.h>

#include "core/request.h"

namespace llm {
namespace {

constexpr Nanos kSecond = 1'000'000'000;
constexpr Nanos kHour = 3600 * kSecond;

Trace trace_at(const std::vector<Nanos>& arrivals) {
  Trace t;
  for (Nanos a : arrivals) {
    TraceRequest r;
    r.arrival_ns = a;
    r.prompt_len = 10;
    r.output_len = 1;
    t.requests.push_back(r);
  }
  return t;
}

TEST(BusiestHour, IsTheAlignedHourWithTheMostArrivals) {
  const TimeWindow w = busiest_hour(trace_at({0, 10, kHour + 1, kHour + 2, kHour + 3, 2 * kHour}));
  EXPECT_EQ(w.begin, kHour);
  EXPECT_EQ(w.end, 2 * kHour);
  EXPECT_EQ(w.arrivals, 3);
  EXPECT_FALSE(w.whole_trace);
  // A tie goes to the earliest hour.
  const TimeWindow tie = busiest_hour(trace_at({1, 2, kHour + 1, kHour + 2, 3 * kHour}));
  EXPECT_EQ(tie.begin, 0);
  EXPECT_EQ(tie.arrivals, 2);
}

TEST(BusiestHour, IsTheWholeTraceWhenShorterThanAnHour) {
  const TimeWindow w = busiest_hour(trace_at({5 * kSecond, 6 * kSecond, 100 * kSecond}));
  EXPECT_TRUE(w.whole_trace);
  EXPECT_EQ(w.begin, 5 * kSecond);
  EXPECT_EQ(w.end, 100 * kSecond + 1);
  EXPECT_EQ(w.arrivals, 3);
  EXPECT_EQ(busiest_hour(Trace{}).arrivals, 0);
}

WindowFigures figures(double waiting_early, double waiting_late, double kv, double prefill_early,
                      double prefill_late, double itl_early, double itl_late) {
  WindowFigures f;
  f.early.mean_waiting = waiting_early;
  f.late.mean_waiting = waiting_late;
  f.peak_kv_usage = kv;
  f.early.mean_prefill_s = prefill_early;
  f.late.mean_prefill_s = prefill_late;
  f.early.mean_itl_s = itl_early;
  f.late.mean_itl_s = itl_late;
  f.early.first_tokens = f.late.first_tokens = 10;
  f.early.itl_samples = f.late.itl_samples = 100;
  return f;
}

TEST(CapacitySignals, EachPatternFromItsFigures) {
  struct Row {
    WindowFigures f;
    CapacityPattern want;
  };
  const Row rows[] = {
      {figures(2, 20, 1.0, 0.1, 0.5, 0.01, 0.05), CapacityPattern::kKvBound},
      {figures(2, 20, 0.95, 0.1, 0.1, 0.01, 0.01), CapacityPattern::kKvBound},
      {figures(2, 20, 0.94, 0.1, 0.1, 0.01, 0.01), CapacityPattern::kComputeBound},
      {figures(0, 1, 0.3, 0.1, 0.1, 0.01, 0.01), CapacityPattern::kComputeBound},
      // Growth by less than one waiting request, or by less than the factor, is flat.
      {figures(0, 0.9, 1.0, 0.1, 0.1, 0.01, 0.01), CapacityPattern::kHeadroom},
      {figures(10, 14, 1.0, 0.1, 0.1, 0.01, 0.01), CapacityPattern::kHeadroom},
      {figures(1, 1, 0.5, 0.1, 0.2, 0.01, 0.05), CapacityPattern::kPrefillHeavy},
      {figures(1, 1, 0.5, 0.1, 0.124, 0.01, 0.05), CapacityPattern::kDecodeBound},
      {figures(1, 1, 0.5, 0.1, 0.1, 0.01, 0.0124), CapacityPattern::kHeadroom},
      // A rise under a millisecond is noise.
      {figures(1, 1, 0.5, 0.0001, 0.0009, 0.0001, 0.0009), CapacityPattern::kHeadroom},
  };
  for (const Row& row : rows) {
    const CapacitySignal s = classify_capacity(row.f);
    EXPECT_EQ(capacity_pattern_name(s.pattern), std::string(capacity_pattern_name(row.want)))
        << row.f.early.mean_waiting << " " << row.f.late.mean_waiting << " " << row.f.peak_kv_usage
        << " " << row.f.late.mean_prefill_s << " " << row.f.late.mean_itl_s;
  }
  WindowFigures no_late_tokens = figures(1, 1, 0.5, 0.1, 0.9, 0.01, 0.09);
  no_late_tokens.late.first_tokens = 0;
  no_late_tokens.late.itl_samples = 0;
  EXPECT_EQ(classify_capacity(no_late_tokens).pattern, CapacityPattern::kHeadroom);
}

TEST(CapacitySignals, EveryPatternHasAReadingAndAResponse) {
  for (CapacityPattern p :
       {CapacityPattern::kKvBound, CapacityPattern::kComputeBound, CapacityPattern::kPrefillHeavy,
        CapacityPattern::kDecodeBound, CapacityPattern::kHeadroom}) {
    EXPECT_FALSE(capacity_pattern_reading(p).empty());
    EXPECT_FALSE(capacity_pattern_response(p).empty());
  }
  EXPECT_NE(capacity_pattern_response(CapacityPattern::kKvBound).find("--kv-cache-dtype fp8"),
            std::string::npos);
  EXPECT_NE(capacity_pattern_response(CapacityPattern::kKvBound).find("--gpu-memory-utilization"),
            std::string::npos);
}

TEST(BusyWindowObserver, SplitsTheWindowsFiguresIntoHalves) {
  TimeWindow w;
  w.begin = 10 * kSecond;
  w.end = 30 * kSecond;  // halves [10, 20) and [20, 30)
  BusyWindowObserver o(w);
  auto step = [&](Nanos start, Nanos end, int64_t waiting, double kv, int64_t preempted) {
    StepStats s;
    s.start = start;
    s.end = end;
    s.num_waiting = waiting;
    s.kv_usage = kv;
    s.num_preempted = preempted;
    o.on_step(s);
  };
  step(0, 5 * kSecond, 100, 1.0, 7);                // before the window: ignored
  step(10 * kSecond, 15 * kSecond, 2, 0.5, 1);      // early: 2 waiting for 5 of 10 s
  step(20 * kSecond, 30 * kSecond - 1, 6, 0.8, 2);  // late: 6 waiting for ~10 s
  step(30 * kSecond, 31 * kSecond, 50, 1.0, 9);     // after: ignored
  Request early_request, late_request;
  early_request.timeline.scheduled = 11 * kSecond;
  early_request.prompt_len = 100;
  early_request.num_cached_tokens = 50;
  late_request.timeline.scheduled = 21 * kSecond;
  late_request.prompt_len = 300;
  late_request.num_cached_tokens = 0;
  o.on_token(early_request, 12 * kSecond, kNoTime);  // prefill 1 s
  o.on_token(early_request, 13 * kSecond, kSecond);
  o.on_token(late_request, 24 * kSecond, kNoTime);  // prefill 3 s
  o.on_token(late_request, 26 * kSecond, 2 * kSecond);
  o.on_token(late_request, 31 * kSecond, 5 * kSecond);  // after the window
  const WindowFigures f = o.figures();
  EXPECT_DOUBLE_EQ(f.early.mean_waiting, 1.0);
  EXPECT_NEAR(f.late.mean_waiting, 6.0, 1e-6);
  EXPECT_DOUBLE_EQ(f.peak_kv_usage, 0.8);
  EXPECT_EQ(f.preemptions, 3);
  EXPECT_EQ(f.peak_waiting, 6);
  EXPECT_DOUBLE_EQ(f.early.mean_prefill_s, 1.0);
  EXPECT_DOUBLE_EQ(f.late.mean_prefill_s, 3.0);
  EXPECT_DOUBLE_EQ(f.early.mean_prompt_len, 100);
  EXPECT_DOUBLE_EQ(f.early.prefix_hit_rate, 0.5);
  EXPECT_DOUBLE_EQ(f.late.prefix_hit_rate, 0.0);
  EXPECT_DOUBLE_EQ(f.early.mean_itl_s, 1.0);
  EXPECT_DOUBLE_EQ(f.late.mean_itl_s, 2.0);
  EXPECT_EQ(f.output_tokens, 4);
  EXPECT_EQ(classify_capacity(f).pattern, CapacityPattern::kComputeBound);
}

}  // namespace
}  // namespace llm
