// The router's policies (sim/routing/router.h): names, and the llm-d policies' choices from what
// the endpoint picker sees: a stale scrape changes the choice, and the prefix-cache scorer sends a
// request to the engine that announced its prefix.
#include "sim/routing/router.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/replay/replay.h"

namespace llm {
namespace {

std::unique_ptr<Request> prompt_of(int64_t tokens) {
  TraceRequest t;
  t.prompt_len = tokens;
  t.output_len = 1;
  return make_request(t, 0);
}

TEST(Router, PolicyNamesRoundTrip) {
  for (const char* name : {"round-robin", "least-outstanding", "prefix-affinity", "llm-d",
                           "queue-scorer", "kv-cache-utilization-scorer", "prefix-cache-scorer"}) {
    EXPECT_STREQ(routing_policy_name(parse_routing_policy(name)), name);
  }
  try {
    parse_routing_policy("random");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "unknown routing policy 'random' (round-robin, least-outstanding, "
                 "prefix-affinity, llm-d, queue-scorer, kv-cache-utilization-scorer, "
                 "prefix-cache-scorer)");
  }
}

TEST(Router, OnlyTheLlmDPoliciesRouteOnScrapes) {
  EXPECT_FALSE(routes_on_scrapes(RoutingPolicy::kRoundRobin));
  EXPECT_FALSE(routes_on_scrapes(RoutingPolicy::kLeastOutstanding));
  EXPECT_FALSE(routes_on_scrapes(RoutingPolicy::kPrefixAffinity));
  EXPECT_TRUE(routes_on_scrapes(RoutingPolicy::kLlmD));
  const ScorerWeights w = default_scorer_weights(RoutingPolicy::kLlmD);
  EXPECT_EQ(w.queue, 2);
  EXPECT_EQ(w.kv_cache, 2);
  EXPECT_EQ(w.prefix_cache, 3);
}

// Two engines scraped at 0 and 50 ms: engine 0 was idle then got a long queue; engine 1 the other
// way round. Which one the router picks depends on which scrape it sees.
TEST(Router, AStaleScrapeChangesTheChoice) {
  struct Row {
    RoutingPolicy policy;
    Nanos staleness;
    Nanos now;
    size_t engine;
  };
  const std::vector<Row> rows = {
      {RoutingPolicy::kQueueScorer, 0, 60 * kNanosPerMs, 1},  // sees 50 ms: 8 vs 2 waiting
      {RoutingPolicy::kQueueScorer, 20 * kNanosPerMs, 60 * kNanosPerMs,
       0},                                                      // sees 0 ms: 0 vs 4 waiting
      {RoutingPolicy::kQueueScorer, 0, 40 * kNanosPerMs, 0},    // the 50 ms scrape is not yet taken
      {RoutingPolicy::kKvCacheScorer, 0, 60 * kNanosPerMs, 1},  // 0.9 vs 0.3 used
      {RoutingPolicy::kKvCacheScorer, 20 * kNanosPerMs, 60 * kNanosPerMs, 0},  // 0.1 vs 0.6 used
      {RoutingPolicy::kLlmD, 0, 60 * kNanosPerMs, 1},
      {RoutingPolicy::kLlmD, 20 * kNanosPerMs, 60 * kNanosPerMs, 0},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(::testing::Message() << routing_policy_name(row.policy) << " staleness "
                                      << row.staleness << " at " << row.now);
    ScrapedGauges gauges(2, row.staleness);
    gauges.record(0, {0, 0, 0.1});
    gauges.record(1, {0, 4, 0.6});
    gauges.record(0, {50 * kNanosPerMs, 8, 0.9});
    gauges.record(1, {50 * kNanosPerMs, 2, 0.3});
    KvCacheManager kv(64, 16, true);
    std::vector<EngineLoad> loads(2);
    for (size_t i = 0; i < 2; ++i) {
      loads[i].outstanding = 5;  // the live state plays no part
      loads[i].kv = &kv;
      loads[i].scraped = gauges.seen_at(i, row.now);
    }
    Router router(row.policy);
    auto request = prompt_of(64);
    EXPECT_EQ(router.pick(*request, loads), row.engine);
  }
}

// An engine's announcements: the first `blocks` blocks of every request.
class FixedAnnouncements : public AnnouncedPrefixes {
 public:
  explicit FixedAnnouncements(int64_t blocks) : blocks_(blocks) {}
  int32_t block_size() const override { return 16; }
  int64_t matched_blocks(Request&) const override { return blocks_; }

 private:
  int64_t blocks_;
};

TEST(Router, ThePrefixScorerWeighsWhatEachEngineAnnounced) {
  struct Row {
    RoutingPolicy policy;
    std::vector<int64_t> announced;  // blocks of the 8-block prompt, per engine
    std::vector<int64_t> waiting;
    size_t engine;
  };
  const std::vector<Row> rows = {
      {RoutingPolicy::kPrefixCacheScorer, {0, 8, 2}, {0, 9, 0}, 1},
      {RoutingPolicy::kPrefixCacheScorer, {4, 0, 6}, {0, 0, 0}, 2},
      // llm-d: all 8 blocks on engine 1 (3 x 1) outweigh its longer queue (2 x 1, scores 1 vs 0).
      {RoutingPolicy::kLlmD, {0, 8}, {0, 3}, 1},
      // ... but a quarter of the prompt (3 x 0.25) does not.
      {RoutingPolicy::kLlmD, {0, 2}, {0, 3}, 0},
      {RoutingPolicy::kQueueScorer, {0, 8}, {0, 3}, 0},  // the queue scorer ignores the prefix
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(routing_policy_name(row.policy));
    KvCacheManager kv(64, 16, true);
    std::vector<FixedAnnouncements> announced;
    for (int64_t b : row.announced) announced.emplace_back(b);
    std::vector<EngineLoad> loads(row.announced.size());
    for (size_t i = 0; i < loads.size(); ++i) {
      loads[i].kv = &kv;
      loads[i].scraped.waiting = row.waiting[i];
      loads[i].announced = &announced[i];
    }
    Router router(row.policy);
    auto request = prompt_of(8 * 16);
    EXPECT_EQ(router.pick(*request, loads), row.engine);
  }
}

TEST(Router, ExplicitWeightsReplaceTheProfile) {
  KvCacheManager kv(64, 16, true);
  FixedAnnouncements none(0), all(8);
  std::vector<EngineLoad> loads(2);
  loads[0] = {.outstanding = 0, .kv = &kv, .scraped = {0, 0, 0}, .announced = &none};
  loads[1] = {.outstanding = 0, .kv = &kv, .scraped = {0, 3, 0}, .announced = &all};
  auto request = prompt_of(8 * 16);
  Router by_default(RoutingPolicy::kLlmD);
  EXPECT_EQ(by_default.pick(*request, loads), 1u);
  const ScorerWeights queue_heavy{.queue = 10, .kv_cache = 0, .prefix_cache = 3};
  Router weighted(RoutingPolicy::kLlmD, &queue_heavy);
  EXPECT_EQ(weighted.pick(*request, loads), 0u);
}

}  // namespace
}  // namespace llm
