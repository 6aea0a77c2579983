// split_prompt_tokens against vLLM's PromptTokenStats.update_from_output (vllm/v1/metrics/
// stats.py) with no KV connector: the table, and its two invariants over all small inputs.
#include "core/prompt_token_stats.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(PromptTokenStats, SplitsAsVllmDoes) {
  const struct {
    int64_t prompt, hit;
    PromptTokenSplit want;
  } cases[] = {
      // prompt, hit: computed, local_cache_hit, cached, recomputed
      {11, -1, {11, 0, 0, 0}},  // never admitted with a hit: all computed
      {11, 0, {11, 0, 0, 0}},   {32, 16, {16, 16, 16, 0}},  // one block of two hit
      {17, 16, {1, 17, 16, 1}},  // all but the last token hit: that token is recomputed
      {33, 32, {1, 33, 32, 1}}, {2, 1, {1, 2, 1, 1}},
      {1, 0, {1, 1, 0, 1}},      // vLLM's rule taken as written: a one-token prompt counts too
      {16, 15, {1, 16, 15, 1}},  // vLLM's rule is hit + 1 == prompt, whatever the block size
      {20, 40, {0, 20, 20, 0}},  // a hit past the prompt is clamped to it
  };
  for (const auto& c : cases) {
    const PromptTokenSplit got = split_prompt_tokens(c.prompt, c.hit);
    EXPECT_EQ(got.computed, c.want.computed) << c.prompt << "/" << c.hit;
    EXPECT_EQ(got.local_cache_hit, c.want.local_cache_hit) << c.prompt << "/" << c.hit;
    EXPECT_EQ(got.cached, c.want.cached) << c.prompt << "/" << c.hit;
    EXPECT_EQ(got.recomputed, c.want.recomputed) << c.prompt << "/" << c.hit;
  }
}

TEST(PromptTokenStats, VllmsInvariantsHold) {
  for (int64_t prompt = 1; prompt <= 40; ++prompt) {
    for (int64_t hit = 0; hit < prompt; ++hit) {
      const PromptTokenSplit s = split_prompt_tokens(prompt, hit);
      // computed + local_cache_hit + external - recomputed = total
      EXPECT_EQ(s.computed + s.local_cache_hit - s.recomputed, prompt) << prompt << "/" << hit;
      // local_cache_hit + external - recomputed = cached
      EXPECT_EQ(s.local_cache_hit - s.recomputed, s.cached) << prompt << "/" << hit;
    }
  }
}

TEST(PromptTokenStats, CacheCreationIsTheFullBlocksBeyondTheHit) {
  const struct {
    int64_t prompt, hit, block_size;
    bool caching;
    int64_t created;
  } cases[] = {
      {40, 0, 16, true, 32},   // two full blocks written, the 8-token tail not
      {40, 32, 16, true, 0},   // both found: nothing new
      {40, 16, 16, true, 16},  // one found, one written
      {32, 16, 16, true, 16},  // a whole-block prompt hits at most P-1: its last block is rewritten
      {33, 32, 16, true, 0},   // all but the last token found
      {11, 0, 16, true, 0},    // no full block
      {11, -1, 16, true, 0},   // never admitted with a hit
      {40, 0, 16, false, 0},   // no prefix caching: nothing hashed
      {64, 0, 64, true, 64},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(cache_creation_tokens(c.prompt, c.hit, c.block_size, c.caching), c.created)
        << c.prompt << "/" << c.hit << "/" << c.block_size << "/" << c.caching;
  }
}

}  // namespace
}  // namespace llm
