// EngineObserver::on_tokens, the one call per step that carries a step's output tokens: by
// default each token reaches on_token in batch order with its own ITL; an ObserverTee hands the
// whole batch to each of its observers in turn; and an engine step calls it once, with every
// sampled sequence of its batch.
#include "core/engine_observer.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "core/engine_core.h"
#include "core/observer_tee.h"
#include "core/testing/scheduler_table.h"
#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

// (request id, time, itl) of every on_token.
struct TokenLog final : EngineObserver {
  std::vector<std::tuple<uint64_t, Nanos, Nanos>> seen;
  void on_token(const Request& r, Nanos time, Nanos itl_ns) override {
    seen.emplace_back(r.id, time, itl_ns);
  }
};

TEST(EngineObserver, OnTokensPassesEachTokenToOnTokenInBatchOrder) {
  Request a, b, c;
  a.id = 7;
  b.id = 3;
  c.id = 9;
  const std::vector<TokenEvent> step = {{&a, 100}, {&b, kNoTime}, {&c, 40}};
  TokenLog log;
  log.on_tokens(step, 5'000);
  using Seen = std::tuple<uint64_t, Nanos, Nanos>;
  EXPECT_EQ(log.seen, (std::vector<Seen>{{7, 5'000, 100}, {3, 5'000, kNoTime}, {9, 5'000, 40}}));
  log.on_tokens({}, 6'000);  // a step without outputs adds nothing
  EXPECT_EQ(log.seen.size(), 3u);
}

TEST(ObserverTee, OnTokensReachesEveryObserverWhole) {
  Request a, b;
  a.id = 1;
  b.id = 2;
  const std::vector<TokenEvent> step = {{&a, 10}, {&b, 20}};
  TokenLog first, second;
  ObserverTee tee({&first, &second});
  tee.on_tokens(step, 77);
  using Seen = std::tuple<uint64_t, Nanos, Nanos>;
  const std::vector<Seen> want = {{1, 77, 10}, {2, 77, 20}};
  EXPECT_EQ(first.seen, want);
  EXPECT_EQ(second.seen, want);
}

// Counts on_tokens calls and checks each against the engine's view of its requests.
struct StepTokens final : EngineObserver {
  std::vector<size_t> sizes;  // tokens per call
  std::vector<std::vector<uint64_t>> ids;
  void on_tokens(std::span<const TokenEvent> tokens, Nanos time) override {
    sizes.push_back(tokens.size());
    ids.emplace_back();
    for (const TokenEvent& t : tokens) {
      ids.back().push_back(t.request->id);
      EXPECT_EQ(t.request->timeline.last_token, time);
      if (t.request->num_output_tokens == 1) {
        EXPECT_EQ(t.itl_ns, kNoTime);
      } else {
        EXPECT_GT(t.itl_ns, 0);
      }
    }
  }
};

TEST(EngineCore, OneOnTokensCallPerStepWithEverySampledSequence) {
  testing::ScriptedBackend backend;
  SimClock clock;
  StepTokens observer;
  EngineCore engine(testing::table_config(64, 256, 256), backend, clock, &observer);
  for (int i = 0; i < 3; ++i) {
    auto r = std::make_unique<Request>();
    r->prompt_len = 8;
    r->params.max_tokens = 2 + i;  // they finish in different steps
    r->params.ignore_eos = true;
    engine.add_request(std::move(r));
  }
  while (engine.step()) {
  }
  EXPECT_EQ(observer.sizes, (std::vector<size_t>{3, 3, 2, 1}));
  EXPECT_EQ(observer.ids.front(), (std::vector<uint64_t>{0, 1, 2}));
  EXPECT_EQ(observer.ids.back(), (std::vector<uint64_t>{2}));
}

}  // namespace
}  // namespace llm
