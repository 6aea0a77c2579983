#include "sim/trace/load_scaling.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "sim/trace/trace_io.h"

namespace llm {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

// `instants` instants one second apart, `burst` requests on each (a Mooncake-like trace).
Trace bursty(int instants, int burst) {
  Trace t;
  for (int i = 0; i < instants; ++i) {
    for (int k = 0; k < burst; ++k) {
      TraceRequest r;
      r.id = std::to_string(i) + "-" + std::to_string(k);
      r.arrival_ns = i * kSecond;
      r.prompt_len = 10;
      r.output_len = 5;
      t.requests.push_back(r);
    }
  }
  return t;
}

void expect_valid(const Trace& t) {
  std::set<std::string> ids;
  for (size_t i = 0; i < t.requests.size(); ++i) {
    EXPECT_TRUE(ids.insert(t.requests[i].id).second) << t.requests[i].id;
    if (i > 0) {
      EXPECT_LE(t.requests[i - 1].arrival_ns, t.requests[i].arrival_ns);
    }
  }
}

TEST(LoadScaling, StretchIsScaleArrivalsAndKeepsTheBursts) {
  const Trace t = bursty(100, 10);
  for (double factor : {0.001, 0.5, 3.0}) {
    Trace want = t;
    scale_arrivals(want, factor);
    LoadScalingInfo info;
    const Trace got = scale_load(t, {factor, LoadScalingMode::kStretch, 0, 7}, &info);
    ASSERT_EQ(got.requests.size(), want.requests.size());
    for (size_t i = 0; i < got.requests.size(); ++i) {
      EXPECT_EQ(got.requests[i].arrival_ns, want.requests[i].arrival_ns);
    }
    EXPECT_EQ(arrival_bursts(got).largest, 10) << "stretched bursts stay bursts";
    EXPECT_NE(stretch_warning(info), "");
  }
}

TEST(LoadScaling, SampleThinsBelowOneAndSuperposesShiftedCopiesAbove) {
  const Trace t = bursty(200, 10);  // 2000 requests, 10 per instant
  struct Row {
    double factor;
    int64_t copies;
    int64_t min_requests, max_requests;
  };
  for (const Row& row : {Row{0.1, 0, 150, 250}, Row{0.5, 0, 900, 1100}, Row{1.0, 1, 2000, 2000},
                         Row{2.0, 2, 4000, 4000}, Row{2.5, 2, 4900, 5100}}) {
    SCOPED_TRACE(row.factor);
    LoadScalingInfo info;
    const Trace got = scale_load(t, {row.factor, LoadScalingMode::kSample, 0, 1}, &info);
    expect_valid(got);
    EXPECT_EQ(info.copies, row.copies);
    EXPECT_GE(got.requests.size(), static_cast<size_t>(row.min_requests));
    EXPECT_LE(got.requests.size(), static_cast<size_t>(row.max_requests));
    EXPECT_EQ(info.replayed_requests, static_cast<int64_t>(got.requests.size()));
    // The trace's time span stays: every arrival within the first arrival + one period.
    EXPECT_GE(got.requests.front().arrival_ns, 0);
    EXPECT_LT(got.requests.back().arrival_ns, 200 * kSecond);
    EXPECT_EQ(stretch_warning(info), "");
  }
  // Thinned, the bursts thin too: about one in ten per instant at 0.1x.
  EXPECT_LT(arrival_bursts(scale_load(t, {0.1, LoadScalingMode::kSample, 0, 1})).largest, 10);
}

TEST(LoadScaling, CopiesAreRenamedAndSaltedAndTheDrawsAreSeeded) {
  const Trace t = bursty(50, 2);
  const Trace a = scale_load(t, {3.0, LoadScalingMode::kSample, 0, 1});
  const Trace b = scale_load(t, {3.0, LoadScalingMode::kSample, 0, 1});
  const Trace c = scale_load(t, {3.0, LoadScalingMode::kSample, 0, 2});
  ASSERT_EQ(a.requests.size(), 300u);
  bool differs = false;
  for (size_t i = 0; i < a.requests.size(); ++i) {
    EXPECT_EQ(a.requests[i].id, b.requests[i].id);
    EXPECT_EQ(a.requests[i].arrival_ns, b.requests[i].arrival_ns);
    differs = differs || a.requests[i].arrival_ns != c.requests[i].arrival_ns;
  }
  EXPECT_TRUE(differs) << "another seed shifts the copies elsewhere";
  int copies = 0;
  for (const TraceRequest& r : a.requests) {
    const bool copy = r.id.find("~c") != std::string::npos;
    copies += copy;
    EXPECT_EQ(r.cache_salt, copy ? r.id.substr(r.id.find('~')) : "") << r.id;
  }
  EXPECT_EQ(copies, 200);
}

TEST(LoadScaling, LoopRepeatsTheTraceOnePeriodApartUpToTheDuration) {
  const Trace t = bursty(10, 3);  // arrivals 0..9 s: period 10 s
  LoadScalingInfo info;
  const Trace got = scale_load(t, {1.0, LoadScalingMode::kStretch, 35 * kSecond, 0}, &info);
  expect_valid(got);
  EXPECT_EQ(info.loops, 4);
  EXPECT_EQ(got.requests.size(), 3u * 35);  // 0..34 s, three requests a second
  EXPECT_EQ(got.requests.back().id, "4-2~l4");
  EXPECT_EQ(got.requests.back().arrival_ns, 34 * kSecond);
  EXPECT_EQ(describe_load_scaling(info),
            "stretch 1x, looped 4 times to 35 s: 105 requests from the trace's 30");
  // Shorter than the trace: it is cut.
  EXPECT_EQ(scale_load(t, {1.0, LoadScalingMode::kStretch, 5 * kSecond, 0}).requests.size(), 15u);
  EXPECT_THROW(scale_load(bursty(1, 5), {1.0, LoadScalingMode::kStretch, kSecond, 0}),
               std::invalid_argument);
  EXPECT_THROW(scale_load(t, {0.0, LoadScalingMode::kSample, 0, 0}), std::invalid_argument);
}

TEST(LoadScaling, BurstsAreCountedByInstant) {
  const ArrivalBursts b = arrival_bursts(bursty(7, 4));
  EXPECT_EQ(b.requests, 28);
  EXPECT_EQ(b.instants, 7);
  EXPECT_EQ(b.largest, 4);
  EXPECT_TRUE(b.bursty());
  EXPECT_FALSE(arrival_bursts(bursty(7, 1)).bursty());
  EXPECT_EQ(parse_load_scaling_mode("sample"), LoadScalingMode::kSample);
  EXPECT_THROW(parse_load_scaling_mode("thin"), std::invalid_argument);
}

}  // namespace
}  // namespace llm
