// The simulated backend's log-probabilities through the engine: each sampled token's entry names
// that token, the prompt's positions arrive in order over prefill chunks, and a request that asks
// for none gets none. With a profile's step_time_noise, each step costs the model's time times
// that step's draw. A sampled token is token_for of its request and index, whether the request's
// identity was cached by this backend, by another one (another seed) or by none.
#include "backends/sim/sim_backend.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "backends/sim/presets.h"
#include "backends/sim/step_record.h"
#include "core/engine_core.h"

namespace llm {
namespace {

// Records what the engine attached to each request when its tokens arrived.
struct LogprobsRecorder final : EngineObserver {
  std::vector<PositionLogprobs> sampled;
  std::vector<int32_t> tokens;
  std::vector<PositionLogprobs> prompt;  // as held at the first token
  int64_t missing = 0;                   // tokens without an entry
  void on_token(const Request& r, Nanos, Nanos) override {
    tokens.push_back(r.last_output_token);
    if (r.last_logprobs) {
      sampled.push_back(*r.last_logprobs);
    } else {
      ++missing;
    }
    if (r.num_output_tokens == 1) prompt = r.prompt_logprobs;
  }
};

Deployment deployment() {
  Deployment d;
  d.gpu = *find_gpu_preset("H200");
  d.model = *find_model_preset("Llama-3.1-8B");
  return d;
}

std::unique_ptr<Request> request(int32_t logprobs, int32_t prompt_logprobs) {
  auto r = std::make_unique<Request>();
  r->external_id = r->parent_id = "r";
  r->prompt_tokens.resize(40);
  std::iota(r->prompt_tokens.begin(), r->prompt_tokens.end(), 100);
  r->params.max_tokens = 6;
  r->params.ignore_eos = true;
  r->params.logprobs = logprobs;
  r->params.prompt_logprobs = prompt_logprobs;
  r->keep_output_tokens = true;
  return r;
}

SchedulerConfig chunked() {
  SchedulerConfig c;
  c.max_num_batched_tokens = 16;  // the 40-token prompt takes three chunks
  c.num_gpu_blocks = 64;
  c.max_model_len = 1024;
  return c;
}

TEST(SimBackend, LogprobsFollowTheSampledTokensAndThePromptOverChunks) {
  SimBackend sim(deployment(), 7);
  SimClock clock;
  LogprobsRecorder rec;
  EngineCore engine(chunked(), sim, clock, &rec);
  engine.add_request(request(3, 2));
  while (engine.step()) {
  }
  ASSERT_EQ(rec.tokens.size(), 6u);
  EXPECT_EQ(rec.missing, 0);
  for (size_t i = 0; i < rec.tokens.size(); ++i) {
    EXPECT_EQ(rec.sampled[i].token, rec.tokens[i]);
    EXPECT_EQ(rec.sampled[i].top.size(), 3u);
  }
  ASSERT_EQ(rec.prompt.size(), 39u);  // positions 1..39
  for (size_t p = 0; p < rec.prompt.size(); ++p) {
    EXPECT_EQ(rec.prompt[p].token, static_cast<int32_t>(100 + p + 1)) << "position " << p + 1;
    EXPECT_EQ(rec.prompt[p].top.size(), 2u);
  }
}

TEST(SimBackend, LogprobsDoNotDependOnChunking) {
  std::vector<PositionLogprobs> results[2];
  for (int run = 0; run < 2; ++run) {
    SimBackend sim(deployment(), 7);
    SimClock clock;
    LogprobsRecorder rec;
    SchedulerConfig c = chunked();
    if (run == 1) c.max_num_batched_tokens = 8192;
    EngineCore engine(c, sim, clock, &rec);
    engine.add_request(request(1, 1));
    while (engine.step()) {
    }
    results[run] = rec.prompt;
    results[run].insert(results[run].end(), rec.sampled.begin(), rec.sampled.end());
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size(); ++i) {
    EXPECT_EQ(results[0][i].token, results[1][i].token);
    EXPECT_EQ(results[0][i].logprob, results[1][i].logprob);
    EXPECT_EQ(results[0][i].top[0].token, results[1][i].top[0].token);
  }
}

TEST(SimBackend, ARequestThatAsksForNoLogprobsGetsNone) {
  SimBackend sim(deployment(), 7);
  SimClock clock;
  LogprobsRecorder rec;
  EngineCore engine(chunked(), sim, clock, &rec);
  engine.add_request(request(-1, -1));
  while (engine.step()) {
    EXPECT_TRUE(sim.logprobs().empty());
  }
  EXPECT_EQ(rec.missing, 6);
  EXPECT_TRUE(rec.prompt.empty());
}

TEST(SimBackend, AProfilesNoiseScalesEachStepByThatStepsDraw) {
  Deployment d;
  FittedStepModel m;
  m.overhead_ns = 1e6;
  m.per_token_ns = 1e4;
  d.fitted = m;
  d.step_noise = StepTimeNoise{{0.1, 0.5, 0.9}, {0.8, 1.0, 1.5}};
  Request r;
  r.prompt_tokens.assign(8, 1);
  r.prompt_len = 8;
  SchedulerOutput batch;
  batch.seqs.push_back(ScheduledSeq{&r, 0, 8, false});
  const Nanos modelled = step_time_ns(d, batch_cost_of(batch));
  std::vector<int32_t> sampled;
  std::vector<Nanos> times[2];
  for (int run = 0; run < 2; ++run) {
    SimBackend sim(d, 11);
    for (uint64_t step = 0; step < 200; ++step) {
      const Nanos t = sim.execute(batch, sampled);
      EXPECT_EQ(t, std::llround(static_cast<double>(modelled) *
                                step_noise_draw(*d.step_noise, 11, step)));
      times[run].push_back(t);
    }
  }
  EXPECT_EQ(times[0], times[1]);  // the same seed, the same steps
  // Each engine of a data-parallel deployment draws its own steps; engine 0 the seed's own.
  SimBackend first(d, 11, 0), second(d, 11, 1);
  int same = 0;
  for (uint64_t step = 0; step < 200; ++step) {
    const Nanos t = second.execute(batch, sampled);
    ASSERT_EQ(first.execute(batch, sampled), times[0][step]);
    same += t == times[0][step];
  }
  EXPECT_LT(same, 60);  // the flat tails (20% of draws each) coincide by chance
  const auto [lo, hi] = std::minmax_element(times[0].begin(), times[0].end());
  EXPECT_EQ(*lo, std::llround(0.8 * static_cast<double>(modelled)));  // the tails' flat parts
  EXPECT_EQ(*hi, std::llround(1.5 * static_cast<double>(modelled)));
  d.step_noise.reset();
  SimBackend quiet(d, 11);
  EXPECT_EQ(quiet.execute(batch, sampled), modelled);
}

// SimBackend caches a sequence's identity in the request (Request::sample_key) at its first
// sampled token; every later token must be the one token_for recomputes from scratch, and a
// backend with another seed must not take the first one's cache.
RC_GTEST_PROP(SimBackend, CachedIdentityGivesTheRecomputedTokens, ()) {
  const auto seeds = *rc::gen::pair(rc::gen::arbitrary<uint64_t>(), rc::gen::arbitrary<uint64_t>());
  Request r;
  r.prompt_tokens.assign(4, 1);
  r.prompt_len = 4;
  r.params.seed = *rc::gen::arbitrary<uint64_t>();
  r.prompt_salt = *rc::gen::arbitrary<uint64_t>();
  r.child_index = *rc::gen::inRange<int32_t>(0, 8);
  SchedulerOutput batch;
  batch.seqs.push_back(ScheduledSeq{&r, 4, 1, true});
  SimBackend first(deployment(), seeds.first), second(deployment(), seeds.second);
  std::vector<int32_t> sampled;
  const auto steps = *rc::gen::inRange(1, 20);
  for (int step = 0; step < steps; ++step) {
    // Each step's backend chosen at random: the cache follows whichever samples.
    SimBackend& sim = *rc::gen::arbitrary<bool>() ? first : second;
    sim.execute(batch, sampled);
    RC_ASSERT(sampled.size() == 1u);
    RC_ASSERT(sampled[0] == sim.token_for(r, r.num_output_tokens));
    RC_ASSERT(r.sample_key_set);
    r.append_output_token(sampled[0]);
  }
}

}  // namespace
}  // namespace llm
