// Tests for the week-long generator (sim/trace/synthetic_week.h): determinism, its spec's
// parsing and errors, the daily and weekly cycles, the code/chat mix and prefix reuse.
#include "sim/trace/synthetic_week.h"

#include <gtest/gtest.h>

#include <string>
#include <unordered_set>
#include <vector>

#include "sim/trace/trace.h"

namespace llm {
namespace {

std::vector<TraceRequest> week_generate(const std::string& spec) {
  WeekStream s(parse_week_spec(spec));
  std::vector<TraceRequest> out;
  while (const TraceRequest* r = s.next()) out.push_back(*r);
  return out;
}

TEST(SyntheticWeek, TheSameSpecGivesTheSameRequests) {
  const auto a = week_generate("synthetic-week:days=0.02,rate=5,seed=4");
  const auto b = week_generate("synthetic-week:days=0.02,rate=5,seed=4");
  const auto c = week_generate("synthetic-week:days=0.02,rate=5,seed=5");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_GT(a.size(), 100u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].arrival_ns, b[i].arrival_ns);
    EXPECT_EQ(a[i].prefix_hash_ids, b[i].prefix_hash_ids);
  }
  EXPECT_NE(a.size() == c.size() && a.back().arrival_ns == c.back().arrival_ns, true);
}

TEST(SyntheticWeek, ArrivalsFollowTheDayAndTheWeek) {
  // One week at 0.2/s without bursts: afternoons busier than nights, weekdays than weekends, and
  // the week's mean near the rate.
  WeekStream s(parse_week_spec("synthetic-week:days=7,rate=0.2,bursts=0,diurnal=0.6,weekend=0.5"));
  std::vector<int64_t> by_hour(24, 0), by_day(7, 0);
  int64_t previous = 0, count = 0;
  while (const TraceRequest* r = s.next()) {
    ASSERT_GE(r->arrival_ns, previous);
    previous = r->arrival_ns;
    ++count;
    const int64_t sec = r->arrival_ns / 1'000'000'000;
    ++by_hour[static_cast<size_t>(sec % 86400 / 3600)];
    ++by_day[static_cast<size_t>(sec / 86400)];
  }
  const double mean = static_cast<double>(count) / (7 * 86400);
  EXPECT_NEAR(mean, 0.2, 0.01);
  EXPECT_GT(by_hour[15], 3 * by_hour[3]);  // (1 + 0.6) / (1 - 0.6) = 4 times
  EXPECT_GT(by_day[1], 1.8 * static_cast<double>(by_day[6]));
}

TEST(SyntheticWeek, MixesCodeAndChatAndReusesPrefixes) {
  const auto reqs = week_generate("synthetic-week:days=0.05,rate=20,code=0.3,followup=0.5,seed=2");
  int64_t code = 0, continued = 0;
  std::unordered_set<uint64_t> seen;
  for (size_t i = 0; i < reqs.size(); ++i) {
    const TraceRequest& r = reqs[i];
    ASSERT_EQ(r.hash_block_size, 16);
    ASSERT_EQ(static_cast<int64_t>(r.prefix_hash_ids.size()), (r.prompt_len + 15) / 16);
    ASSERT_LE(r.prompt_len, 8192);
    if (r.prefix_hash_ids[0] < (1ULL << 40)) ++code;  // a shared system prompt
    // A later turn of a conversation starts with its first turn's ids.
    if (r.prefix_hash_ids[0] >= (1ULL << 40) && !seen.insert(r.prefix_hash_ids[0]).second) {
      ++continued;
    }
  }
  const double n = static_cast<double>(reqs.size());
  EXPECT_NEAR(code / n, 0.3, 0.05);
  EXPECT_GT(continued / n, 0.2);
}

TEST(SyntheticWeek, NStopsAfterThatManyRequests) {
  EXPECT_EQ(week_generate("synthetic-week:n=37").size(), 37u);
}

TEST(SyntheticWeek, BadSpecsNameTheKey) {
  struct Case {
    std::string spec, want;
  };
  for (const Case& c :
       {Case{"synthetic-week:rate=0", "synthetic-week: rate: expected requests per second > 0"},
        Case{"synthetic-week:days=x", "synthetic-week: days: expected a number, got 'x'"},
        Case{"synthetic-week:diurnal=1",
             "synthetic-week: diurnal: expected an amplitude in [0, 1)"},
        Case{"synthetic-week:colour=3",
             "synthetic-week: colour: unknown key (accepted: seed, "
             "days, rate, diurnal, weekend, bursts, burst_len, "
             "burst_factor, code, followup, n)"},
        Case{"synthetic-week:days", "synthetic-week: days: expected key=value"}}) {
    try {
      parse_week_spec(c.spec);
      ADD_FAILURE() << c.spec << " was accepted";
    } catch (const TraceError& e) {
      EXPECT_EQ(std::string(e.what()), c.want);
    }
  }
  EXPECT_EQ(format_week_spec(parse_week_spec("synthetic-week:rate=3,n=5")),
            "synthetic-week:seed=1,days=7,rate=3,diurnal=0.6,weekend=0.6,bursts=4,burst_len=300,"
            "burst_factor=3,code=0.3,followup=0.5,n=5");
}

}  // namespace
}  // namespace llm
