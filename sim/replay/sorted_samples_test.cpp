// SampleCollector and SequenceOutcomes: spilled to disk in sorted runs beyond their bound and
// merged, they give the same samples and the same figures (bit for bit) as sorting them all in
// memory; outcomes come back in the order they were added.
#include "sim/replay/sorted_samples.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/replay/sequence_outcomes.h"

namespace llm {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_figures(const Distribution& a, const Distribution& b) {
  return a.count == b.count && same_bits(a.mean, b.mean) && same_bits(a.p50, b.p50) &&
         same_bits(a.p90, b.p90) && same_bits(a.p95, b.p95) && same_bits(a.p99, b.p99) &&
         same_bits(a.p999, b.p999) && same_bits(a.max, b.max);
}

TEST(SampleCollector, BelowItsBoundItStaysInMemoryAndBeyondItGoesToDisk) {
  struct Row {
    size_t bound;
    size_t values;
    bool on_disk;
  };
  for (const Row& row : {Row{8, 7, false}, Row{8, 8, true}, Row{1, 1, true}, Row{8, 0, false},
                         Row{3, 10, true}}) {
    SCOPED_TRACE(std::to_string(row.bound) + " " + std::to_string(row.values));
    SampleCollector c(std::make_shared<SpillArea>(row.bound));
    ExactSamples exact;
    for (size_t i = 0; i < row.values; ++i) {
      const double v = static_cast<double>((i * 7) % 5) + 0.25 * static_cast<double>(i);
      c.add(v);
      exact.add(v);
    }
    EXPECT_EQ(c.size(), row.values);
    Distribution d;
    const SortedSamples sorted = c.finish(&d);
    EXPECT_EQ(sorted.on_disk(), row.on_disk);
    EXPECT_TRUE(same_figures(d, exact.summarize()));
    ASSERT_EQ(sorted.size(), exact.values().size());
    for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], exact.values()[i]);
    EXPECT_TRUE(c.empty());
  }
}

RC_GTEST_PROP(SampleCollector, SpilledAndMergedGivesTheSameSamplesAndFiguresAsSortingThemAll,
              ()) {
  const size_t bound = *rc::gen::inRange<size_t>(1, 40);
  // Latency-like values with many ties (a fixed step time repeats) and a wide range.
  const auto values = *rc::gen::container<std::vector<double>>(rc::gen::oneOf(
      rc::gen::map(rc::gen::inRange(0, 50), [](int i) { return 0.005 * i; }),
      rc::gen::map(rc::gen::inRange(0, 1 << 30), [](int i) { return i * 1e-6; })));
  auto area = std::make_shared<SpillArea>(bound);
  SampleCollector a(area), b(area);  // two distributions sharing one scratch file, interleaved
  ExactSamples exact;
  for (double v : values) {
    a.add(v);
    b.add(-v);
    exact.add(v);
  }
  Distribution da, db;
  const SortedSamples sa = a.finish(&da);
  const SortedSamples sb = b.finish(&db);
  RC_ASSERT(same_figures(da, exact.summarize()));
  std::vector<double> got(sa.size());
  for (size_t i = 0; i < sa.size(); ++i) got[i] = sa[i];
  RC_ASSERT(got == exact.values());
  RC_ASSERT(sb.size() == values.size());
  for (size_t i = 0; i < sb.size(); ++i) RC_ASSERT(sb[i] == -exact.values()[values.size() - 1 - i]);
  for (double q : {0.0, 0.25, 0.5, 0.999, 1.0}) {
    if (!values.empty()) RC_ASSERT(same_bits(sorted_quantile(sa, q), sorted_quantile(got, q)));
  }
}

RC_GTEST_PROP(SequenceOutcomes, SpilledOutcomesComeBackInTheOrderTheyWereAdded, ()) {
  const size_t bound = *rc::gen::inRange<size_t>(1, 10);
  const auto ttfts = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 1000));
  SequenceOutcomes outcomes(std::make_shared<SpillArea>(bound));
  for (int t : ttfts) outcomes.push_back({t % 3 == 0, t * 0.01, t * 0.001, t * 0.1});
  RC_ASSERT(outcomes.size() == ttfts.size());
  std::vector<SequenceOutcome> got;
  outcomes.for_each([&](const SequenceOutcome& o) { got.push_back(o); });
  RC_ASSERT(got.size() == ttfts.size());
  for (size_t i = 0; i < got.size(); ++i) {
    const int t = ttfts[i];
    RC_ASSERT(got[i].completed == (t % 3 == 0));
    RC_ASSERT(got[i].ttft_s == t * 0.01);
    RC_ASSERT(got[i].tpot_s == t * 0.001);
    RC_ASSERT(got[i].e2e_s == t * 0.1);
  }
}

}  // namespace
}  // namespace llm
