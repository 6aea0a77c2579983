// The engine's log-probability plumbing (EngineCore::attach_logprobs): a backend's StepLogprobs
// reach the Request before the observer hears of the token, prompt positions are gathered in order
// over prefill chunks, and a position scored twice (a recomputed prompt) is kept once.
#include "core/logprobs.h"

#include <gtest/gtest.h>

#include <numeric>

#include "core/engine_core.h"
#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

// Scores prompt position p with logprob -p and every sampled token (7) with -0.5. With
// `rescore`, each step scores the prompt again from position 1, as a recompute would.
class ScoringBackend final : public Backend {
 public:
  explicit ScoringBackend(bool rescore) : rescore_(rescore) {}
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    sampled.assign(batch.seqs.size(), -1);
    out_.clear();
    for (size_t i = 0; i < batch.seqs.size(); ++i) {
      const ScheduledSeq& s = batch.seqs[i];
      const Request& r = *s.request;
      if (s.samples) sampled[i] = 7;
      if (!wants_logprobs(r.params.logprobs, r.params.prompt_logprobs)) continue;
      SeqLogprobs e;
      e.seq = i;
      e.first_prompt_position = rescore_ ? 1 : s.num_computed_before + 1;
      const int64_t end = std::min(s.num_computed_before + s.num_new_tokens, r.prompt_len - 1);
      for (int64_t p = e.first_prompt_position; p <= end; ++p) {
        e.prompt.push_back(
            {r.prompt_tokens[static_cast<size_t>(p)], -static_cast<float>(p), 1, {}});
      }
      if (s.samples && r.params.logprobs >= 0) e.sampled = PositionLogprobs{7, -0.5f, 1, {}};
      out_.seqs.push_back(std::move(e));
    }
    return 10;
  }
  const StepLogprobs& logprobs() const override { return out_; }
  int32_t eos_token_id() const override { return 0; }

 private:
  bool rescore_;
  StepLogprobs out_;
};

// What the request held at each token.
struct Seen final : EngineObserver {
  std::vector<std::optional<PositionLogprobs>> sampled;
  std::vector<PositionLogprobs> prompt;  // at the first token
  void on_token(const Request& r, Nanos, Nanos) override {
    sampled.push_back(r.last_logprobs);
    if (r.num_output_tokens == 1) prompt = r.prompt_logprobs;
  }
};

std::unique_ptr<Request> request(int32_t logprobs, int32_t prompt_logprobs) {
  auto r = std::make_unique<Request>();
  r->external_id = r->parent_id = "r";
  r->prompt_tokens.resize(20);
  std::iota(r->prompt_tokens.begin(), r->prompt_tokens.end(), 50);
  r->params.max_tokens = 3;
  r->params.logprobs = logprobs;
  r->params.prompt_logprobs = prompt_logprobs;
  return r;
}

SchedulerConfig config() {
  SchedulerConfig c;
  c.max_num_batched_tokens = 8;  // the 20-token prompt takes three chunks
  c.num_gpu_blocks = 32;
  c.max_model_len = 256;
  return c;
}

void expect_prompt_positions(const std::vector<PositionLogprobs>& prompt) {
  ASSERT_EQ(prompt.size(), 19u);
  for (size_t i = 0; i < prompt.size(); ++i) {
    EXPECT_EQ(prompt[i].token, static_cast<int32_t>(50 + i + 1)) << "position " << i + 1;
    EXPECT_EQ(prompt[i].logprob, -static_cast<float>(i + 1)) << "position " << i + 1;
  }
}

TEST(EngineLogprobs, PromptPositionsArriveInOrderOverChunksAndEachTokenHasItsEntry) {
  ScoringBackend backend(false);
  SimClock clock;
  Seen seen;
  EngineCore engine(config(), backend, clock, &seen);
  engine.add_request(request(2, 2));
  while (engine.step()) {
  }
  expect_prompt_positions(seen.prompt);
  ASSERT_EQ(seen.sampled.size(), 3u);
  for (const auto& s : seen.sampled) {
    ASSERT_TRUE(s.has_value());
    EXPECT_EQ(s->token, 7);
    EXPECT_EQ(s->logprob, -0.5f);
  }
}

TEST(EngineLogprobs, APromptPositionScoredAgainIsKeptOnce) {
  ScoringBackend backend(true);
  SimClock clock;
  Seen seen;
  EngineCore engine(config(), backend, clock, &seen);
  engine.add_request(request(-1, 0));
  while (engine.step()) {
  }
  expect_prompt_positions(seen.prompt);
  for (const auto& s : seen.sampled) EXPECT_FALSE(s.has_value());  // logprobs not asked
}

TEST(EngineLogprobs, ABackendWithoutLogprobsLeavesTheRequestWithout) {
  testing::ScriptedBackend backend;
  SimClock clock;
  Seen seen;
  EngineCore engine(config(), backend, clock, &seen);
  engine.add_request(request(5, 5));
  while (engine.step()) {
  }
  ASSERT_FALSE(seen.sampled.empty());
  EXPECT_FALSE(seen.sampled[0].has_value());
  EXPECT_TRUE(seen.prompt.empty());
}

TEST(EngineLogprobs, WantsLogprobsWhenEitherCountIsSet) {
  EXPECT_FALSE(wants_logprobs(-1, -1));
  EXPECT_TRUE(wants_logprobs(0, -1));
  EXPECT_TRUE(wants_logprobs(-1, 0));
  EXPECT_TRUE(wants_logprobs(20, 3));
}

}  // namespace
}  // namespace llm
