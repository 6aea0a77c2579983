// The endpoint picker's scorers and max-score picker (sim/routing/epp_scorers.h): exact scores in
// tables, and as properties that every score lies in [0, 1] and the pick has the highest total.
#include "sim/routing/epp_scorers.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm {
namespace {

std::vector<EndpointView> waiting(std::vector<int64_t> queues) {
  std::vector<EndpointView> v;
  for (int64_t q : queues) v.push_back({.waiting = q});
  return v;
}

TEST(EppScorers, QueueScorerIsMinMaxOverTheCandidates) {
  struct Row {
    std::vector<int64_t> waiting;
    std::vector<double> scores;
  };
  const std::vector<Row> rows = {
      {{0, 5, 10}, {1.0, 0.5, 0.0}},
      {{3, 3}, {1.0, 1.0}},  // all equal: all best
      {{7}, {1.0}},
      {{2, 6, 4, 2}, {1.0, 0.0, 0.5, 1.0}},
      {{}, {}},
  };
  for (const Row& row : rows) {
    EXPECT_EQ(queue_scores(waiting(row.waiting)), row.scores);
  }
}

TEST(EppScorers, KvCacheScorerIsTheFreeShare) {
  std::vector<EndpointView> v = {{.kv_usage = 0.25}, {.kv_usage = 1.0}, {.kv_usage = 0}};
  EXPECT_EQ(kv_cache_scores(v), (std::vector<double>{0.75, 0.0, 1.0}));
}

TEST(EppScorers, PrefixCacheScorerIsTheMatchedShareOfTheRequestsBlocks) {
  std::vector<EndpointView> v = {{.matched_blocks = 2, .request_blocks = 4},
                                 {.matched_blocks = 0, .request_blocks = 4},
                                 {.matched_blocks = 4, .request_blocks = 4},
                                 {.matched_blocks = 0, .request_blocks = 0}};
  EXPECT_EQ(prefix_cache_scores(v), (std::vector<double>{0.5, 0.0, 1.0, 0.0}));
}

TEST(EppScorers, WeightedScoresAddTheWeightedScorers) {
  const ScorerWeights llm_d{.queue = 2, .kv_cache = 2, .prefix_cache = 3};
  struct Row {
    ScorerWeights weights;
    std::vector<double> total;
  };
  // Engine 0: shortest queue, fullest cache, no prefix; engine 1: longer queue, half the prefix.
  const std::vector<EndpointView> v = {
      {.waiting = 0, .kv_usage = 0.5, .matched_blocks = 0, .request_blocks = 8},
      {.waiting = 4, .kv_usage = 0.25, .matched_blocks = 4, .request_blocks = 8}};
  const std::vector<Row> rows = {
      {llm_d, {2 * 1.0 + 2 * 0.5 + 0, 0 + 2 * 0.75 + 3 * 0.5}},
      {{.queue = 1}, {1.0, 0.0}},
      {{.kv_cache = 1}, {0.5, 0.75}},
      {{.prefix_cache = 1}, {0.0, 0.5}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(scorer_weights_text(row.weights));
    EXPECT_EQ(weighted_scores(v, row.weights), row.total);
  }
}

TEST(EppScorers, MaxScorePickerTakesTheBestAndDrawsAmongTies) {
  Rng rng(1);
  const std::vector<double> unique = {0.5, 3.0, 1.0};
  for (int i = 0; i < 20; ++i) EXPECT_EQ(pick_max_score(unique, rng), 1u);
  const std::vector<double> tied = {2.0, 1.0, 2.0, 0.0};
  std::set<size_t> picked;
  for (int i = 0; i < 200; ++i) picked.insert(pick_max_score(tied, rng));
  EXPECT_EQ(picked, (std::set<size_t>{0, 2}));
  Rng a(7), b(7);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(pick_max_score(tied, a), pick_max_score(tied, b));
}

TEST(EppScorers, ParsesScorerWeights) {
  const ScorerWeights w = parse_scorer_weights("queue=2,kv-cache=0.5,prefix-cache=3");
  EXPECT_EQ(w.queue, 2);
  EXPECT_EQ(w.kv_cache, 0.5);
  EXPECT_EQ(w.prefix_cache, 3);
  EXPECT_EQ(parse_scorer_weights("prefix-cache=1").queue, 0);
  EXPECT_EQ(scorer_weights_text(w), "queue=2,kv-cache=0.5,prefix-cache=3");
  struct Bad {
    const char* text;
    const char* message;
  };
  const std::vector<Bad> bad = {
      {"", "'': expected SCORER=WEIGHT"},
      {"queue", "'queue': expected SCORER=WEIGHT"},
      {"lora=1", "'lora': unknown scorer (queue, kv-cache, prefix-cache)"},
      {"queue=-1", "'queue=-1': the weight must be a number >= 0"},
      {"queue=x", "'queue=x': the weight must be a number >= 0"},
      {"queue=1x", "'queue=1x': the weight must be a number >= 0"},
      {"queue=nan", "'queue=nan': the weight must be a number >= 0"},
      {"queue=1,queue=2", "'queue' given twice"},
      {"queue=0,kv-cache=0", "all weights are 0"},
      {"queue=1,", "'': expected SCORER=WEIGHT"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.text);
    try {
      parse_scorer_weights(b.text);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), b.message);
    }
  }
}

RC_GTEST_PROP(EppScorers, ScoresLieInTheUnitIntervalAndThePickIsABest, ()) {
  const auto n = *rc::gen::inRange<size_t>(1, 9);
  std::vector<EndpointView> v;
  for (size_t i = 0; i < n; ++i) {
    const int64_t blocks = *rc::gen::inRange<int64_t>(0, 64);
    v.push_back({.waiting = *rc::gen::inRange<int64_t>(0, 500),
                 .kv_usage = *rc::gen::inRange(0, 1001) / 1000.0,
                 .matched_blocks = blocks == 0 ? 0 : *rc::gen::inRange<int64_t>(0, blocks + 1),
                 .request_blocks = blocks});
  }
  for (const auto& scores : {queue_scores(v), kv_cache_scores(v), prefix_cache_scores(v)}) {
    RC_ASSERT(scores.size() == n);
    for (double s : scores) RC_ASSERT(s >= 0.0 && s <= 1.0);
  }
  const ScorerWeights w{.queue = 2, .kv_cache = 2, .prefix_cache = 3};
  const std::vector<double> total = weighted_scores(v, w);
  Rng rng(*rc::gen::arbitrary<uint64_t>());
  const size_t picked = pick_max_score(total, rng);
  RC_ASSERT(total[picked] == *std::max_element(total.begin(), total.end()));
}

}  // namespace
}  // namespace llm
