// Replays routed by the llm-d policies (sim/routing/router.h): the router sees the engines' gauges
// as of the endpoint picker's last scrape, so a burst herds onto the engine that looked emptiest;
// the prefix-cache scorer sends a shared-prefix request to the engine that holds its prefix; and
// the routes are the same on every run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/sim/presets.h"
#include "sim/replay/replay.h"

namespace llm {
namespace {

ReplayConfig two_engines(RoutingPolicy policy) {
  ReplayConfig c;
  c.scheduler.block_size = 16;
  c.scheduler.max_model_len = 1024;
  c.scheduler.num_gpu_blocks = 400;
  c.scheduler.max_num_batched_tokens = 1024;
  c.deployment.gpu = *find_gpu_preset("H200");
  c.deployment.model = *find_model_preset("Llama-3.2-1B");
  c.data_parallel_size = 2;
  c.routing = policy;
  return c;
}

TraceRequest request(const std::string& id, Nanos arrival, int64_t prompt, int64_t output) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = arrival;
  r.prompt_len = prompt;
  r.output_len = output;
  return r;
}

// The engine of every trace request, in trace order.
std::vector<size_t> routes(const Trace& trace, const ReplayConfig& config) {
  std::vector<size_t> engine(trace.requests.size(), 99);
  ReplayHooks hooks;
  hooks.on_route = [&engine](size_t r, size_t e) { engine[r] = e; };
  std::vector<EngineObserver> quiet(static_cast<size_t>(config.data_parallel_size));
  std::vector<EngineObserver*> observers;
  for (EngineObserver& o : quiet) observers.push_back(&o);
  run_replay(trace, config, observers, hooks);
  return engine;
}

// A long request fills engine X's KV cache from t = 0; at 60 ms a burst of 8 arrives at once.
// Scraped every 50 ms, the picker sees X's fuller cache and equal (empty) queues for the whole
// burst and sends all of it to the other engine; on the live state the queue it builds there
// turns the rest of the burst to X.
TEST(ReplayEpp, AStaleScrapeHerdsABurstOntoTheEngineThatLookedEmptiest) {
  Trace trace;
  trace.requests.push_back(request("long", 0, 600, 400));
  for (int k = 0; k < 8; ++k) {
    trace.requests.push_back(request("burst-" + std::to_string(k), 60 * kNanosPerMs, 32, 20));
  }
  struct Row {
    Nanos scrape_interval;
    bool all_on_one;
  };
  for (const Row& row : std::vector<Row>{{50 * kNanosPerMs, true}, {0, false}}) {
    SCOPED_TRACE(::testing::Message() << "scrape interval " << row.scrape_interval);
    ReplayConfig config = two_engines(RoutingPolicy::kLlmD);
    config.epp.scrape_interval = row.scrape_interval;
    const std::vector<size_t> engine = routes(trace, config);
    int on_other = 0;
    for (size_t k = 1; k < engine.size(); ++k) on_other += engine[k] != engine[0];
    if (row.all_on_one) {
      EXPECT_EQ(on_other, 8);
    } else {
      EXPECT_GE(on_other, 1);
      EXPECT_LT(on_other, 8);
    }
  }
}

// Staleness beyond the burst's age makes the picker see the t = 0 scrape, when neither engine
// held anything: the burst is then spread by the tie-break draw alone, not all sent one way.
TEST(ReplayEpp, StalenessMakesThePickerSeeAnOlderScrape) {
  Trace trace;
  trace.requests.push_back(request("long", 0, 600, 400));
  for (int k = 0; k < 8; ++k) {
    trace.requests.push_back(request("burst-" + std::to_string(k), 60 * kNanosPerMs, 32, 20));
  }
  ReplayConfig config = two_engines(RoutingPolicy::kKvCacheScorer);
  config.epp.staleness =
      40 * kNanosPerMs;  // at 60 ms it sees the scrape of 0 ms: both empty, all tied
  const std::vector<size_t> engine = routes(trace, config);
  int on_zero = 0;
  for (size_t k = 1; k < engine.size(); ++k) on_zero += engine[k] == 0;
  EXPECT_GT(on_zero, 0);
  EXPECT_LT(on_zero, 8);
  config.epp.staleness = 0;  // the 50 ms scrape: everything away from the long request's engine
  const std::vector<size_t> fresh = routes(trace, config);
  for (size_t k = 1; k < fresh.size(); ++k) EXPECT_NE(fresh[k], fresh[0]);
}

// Two conversations start at once; their second turns (the first turn's prompt plus more) come a
// second later. Whatever engines the first turns drew, each second turn goes where its prefix is.
TEST(ReplayEpp, ThePrefixScorerSendsASharedPrefixToTheEngineThatHoldsIt) {
  auto turn = [](const std::string& id, Nanos arrival, uint64_t conversation, int blocks) {
    TraceRequest r = request(id, arrival, 16 * blocks, 4);
    for (int b = 0; b < blocks; ++b) r.prefix_hash_ids.push_back(conversation * 1000 + b);
    r.hash_block_size = 16;
    return r;
  };
  for (RoutingPolicy policy : {RoutingPolicy::kPrefixCacheScorer, RoutingPolicy::kLlmD}) {
    for (uint64_t seed = 0; seed < 8; ++seed) {
      SCOPED_TRACE(::testing::Message() << routing_policy_name(policy) << " seed " << seed);
      Trace trace;
      trace.requests = {turn("a1", 0, 1, 8), turn("b1", 0, 2, 8),
                        turn("a2", 1'000 * kNanosPerMs, 1, 12),
                        turn("b2", 1'000 * kNanosPerMs, 2, 12)};
      ReplayConfig config = two_engines(policy);
      config.seed = seed;
      const std::vector<size_t> engine = routes(trace, config);
      EXPECT_EQ(engine[2], engine[0]);
      EXPECT_EQ(engine[3], engine[1]);
    }
  }
}

TEST(ReplayEpp, RoutesAreTheSameOnEveryRun) {
  Trace trace;
  for (int k = 0; k < 200; ++k) {
    TraceRequest r =
        request(std::to_string(k), k * 7 * kNanosPerMs, 64 + (k * 37) % 400, 10 + k % 50);
    for (int b = 0; b < 4; ++b) r.prefix_hash_ids.push_back(k % 5 * 100 + b);
    r.hash_block_size = 16;
    trace.requests.push_back(r);
  }
  for (RoutingPolicy policy : {RoutingPolicy::kLlmD, RoutingPolicy::kQueueScorer,
                               RoutingPolicy::kKvCacheScorer, RoutingPolicy::kPrefixCacheScorer}) {
    SCOPED_TRACE(routing_policy_name(policy));
    ReplayConfig config = two_engines(policy);
    config.epp.staleness = 30 * kNanosPerMs;
    EXPECT_EQ(routes(trace, config), routes(trace, config));
  }
}

TEST(ReplayEpp, RejectsANegativeScrapeInterval) {
  Trace trace;
  trace.requests.push_back(request("a", 0, 32, 2));
  ReplayConfig config = two_engines(RoutingPolicy::kLlmD);
  config.epp.scrape_interval = -1;
  EXPECT_THROW(routes(trace, config), std::invalid_argument);
}

}  // namespace
}  // namespace llm
