// What the router sees of scraped gauges (sim/routing/scraped_gauges.h): the newest sample at least
// `staleness` old, zeros before the first one.
#include "sim/routing/scraped_gauges.h"

#include <gtest/gtest.h>

#include <vector>

namespace llm {
namespace {

TEST(ScrapedGauges, ARouteSeesTheNewestSampleOldEnough) {
  struct Row {
    Nanos staleness;
    Nanos now;
    int64_t waiting;  // of the sample it sees (0: none yet)
  };
  const std::vector<Row> rows = {
      {0, 0, 1},
      {0, 49 * kNanosPerMs, 1},
      {0, 50 * kNanosPerMs, 2},
      {0, 120 * kNanosPerMs, 3},
      {20 * kNanosPerMs, 60 * kNanosPerMs, 1},
      {20 * kNanosPerMs, 70 * kNanosPerMs, 2},
      {60 * kNanosPerMs, 40 * kNanosPerMs, 0},
      {60 * kNanosPerMs, 160 * kNanosPerMs, 3},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(::testing::Message() << "staleness " << row.staleness << " now " << row.now);
    ScrapedGauges gauges(2, row.staleness);
    for (int k = 0; k < 3; ++k) {
      gauges.record(0, {k * 50 * kNanosPerMs, k + 1, 0.1 * (k + 1)});
      gauges.record(1, {k * 50 * kNanosPerMs, 10 * (k + 1), 0.0});
    }
    const GaugeSample seen = gauges.seen_at(0, row.now);
    EXPECT_EQ(seen.waiting, row.waiting);
    EXPECT_EQ(gauges.seen_at(1, row.now).waiting, 10 * row.waiting);
    if (row.waiting > 0) {
      EXPECT_DOUBLE_EQ(seen.kv_usage, 0.1 * row.waiting);
    }
  }
}

TEST(ScrapedGauges, LaterQueriesStillSeeLaterSamples) {
  ScrapedGauges gauges(1, 0);
  for (int k = 0; k < 100; ++k) {
    gauges.record(0, {k * kNanosPerMs, k, 0});
    EXPECT_EQ(gauges.seen_at(0, k * kNanosPerMs).waiting, k);
  }
}

}  // namespace
}  // namespace llm
