// ParkedRequests: a record gives back the Request it was made from, field for field; only fresh
// requests park; records come back oldest first.
#include "core/parked_requests.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace llm {
namespace {

bool same_double(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every field a record keeps (parkable() pins the others to their defaults).
void expect_same(const Request& a, const Request& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.external_id, b.external_id);
  EXPECT_EQ(a.parent_id, b.parent_id);
  EXPECT_EQ(a.child_index, b.child_index);
  EXPECT_EQ(a.prompt_len, b.prompt_len);
  EXPECT_EQ(a.prompt_tokens, b.prompt_tokens);
  EXPECT_EQ(a.prefix_hash_ids, b.prefix_hash_ids);
  EXPECT_EQ(a.hash_block_size, b.hash_block_size);
  EXPECT_EQ(a.prompt_salt, b.prompt_salt);
  EXPECT_EQ(a.cache_salt, b.cache_salt);
  EXPECT_EQ(a.lora_name, b.lora_name);
  const SamplingParams &p = a.params, &q = b.params;
  EXPECT_EQ(p.min_tokens, q.min_tokens);
  EXPECT_TRUE(same_double(p.min_p, q.min_p));
  EXPECT_TRUE(same_double(p.repetition_penalty, q.repetition_penalty));
  EXPECT_TRUE(same_double(p.frequency_penalty, q.frequency_penalty));
  EXPECT_TRUE(same_double(p.presence_penalty, q.presence_penalty));
  EXPECT_EQ(p.logit_bias, q.logit_bias);
  EXPECT_EQ(p.allowed_token_ids, q.allowed_token_ids);
  EXPECT_EQ(p.max_tokens, q.max_tokens);
  EXPECT_EQ(p.n, q.n);
  EXPECT_EQ(p.stop_token_ids, q.stop_token_ids);
  EXPECT_EQ(p.ignore_eos, q.ignore_eos);
  EXPECT_EQ(p.seed, q.seed);
  EXPECT_TRUE(same_double(p.temperature, q.temperature));
  EXPECT_TRUE(same_double(p.top_p, q.top_p));
  EXPECT_EQ(p.top_k, q.top_k);
  EXPECT_EQ(p.logprobs, q.logprobs);
  EXPECT_EQ(p.prompt_logprobs, q.prompt_logprobs);
  EXPECT_EQ(a.priority, b.priority);
  EXPECT_EQ(a.scripted_output_len, b.scripted_output_len);
  EXPECT_EQ(a.keep_output_tokens, b.keep_output_tokens);
  EXPECT_EQ(a.timeline.arrival, b.timeline.arrival);
  EXPECT_EQ(a.timeline.queued, b.timeline.queued);
  EXPECT_TRUE(ParkedRequests::parkable(b));
}

Request simulated(uint64_t id) {
  Request r;
  r.id = id;
  r.external_id = "synthetic-" + std::to_string(id);
  r.parent_id = r.external_id;
  r.prompt_len = 1234;
  r.scripted_output_len = 200;
  r.params.max_tokens = 512;
  r.timeline.arrival = 3'600'000'000'000 + static_cast<Nanos>(id);
  r.timeline.queued = r.timeline.arrival + 1500;
  return r;
}

TEST(ParkedRequests, EachKindOfRequestComesBackAsItWent) {
  struct Case {
    const char* name;
    std::function<void(Request&)> set;
  };
  const std::vector<Case> cases = {
      {"default", [](Request&) {}},
      {"simulated", [](Request& r) { r = simulated(77); }},
      {"child of n=3",
       [](Request& r) {
         r = simulated(5);
         r.parent_id = "cmpl-9";
         r.external_id = "2_cmpl-9";
         r.child_index = 2;
         r.params.n = 3;
         r.params.seed = 43;
       }},
      {"real tokens and stops",
       [](Request& r) {
         r.prompt_tokens = {1, 0, -5, 128255, std::numeric_limits<int32_t>::max()};
         r.prompt_len = 5;
         r.params.stop_token_ids = {2, 128009};
         r.params.ignore_eos = true;
         r.keep_output_tokens = true;
       }},
      {"prefix identity and salts",
       [](Request& r) {
         r.prefix_hash_ids = {0, 1, std::numeric_limits<uint64_t>::max()};
         r.hash_block_size = 512;
         r.prompt_salt = 0xfeedface;
         r.cache_salt = "tenant-a";
         r.lora_name = "sql-lora";
       }},
      {"every sampling control",
       [](Request& r) {
         r.params.min_tokens = 3;
         r.params.min_p = 0.05;
         r.params.repetition_penalty = 1.1;
         r.params.frequency_penalty = -0.5;
         r.params.presence_penalty = -0.0;
         r.params.logit_bias = {{7, -100.0f}, {9, 2.5f}};
         r.params.allowed_token_ids = {3, 4, 5};
         r.params.temperature = 0;
         r.params.top_p = 0.9;
         r.params.top_k = -1;
         r.params.logprobs = 5;
         r.params.prompt_logprobs = 0;
         r.priority = -10;
       }},
      {"queued without arrival", [](Request& r) { r.timeline.queued = 42; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Request r;
    c.set(r);
    ASSERT_TRUE(ParkedRequests::parkable(r));
    ParkedRequests parked;
    parked.push(r);
    EXPECT_EQ(parked.size(), 1u);
    const std::unique_ptr<Request> back = parked.pop();
    expect_same(r, *back);
    EXPECT_TRUE(parked.empty());
    EXPECT_EQ(parked.bytes(), 0u);
  }
}

TEST(ParkedRequests, ARequestWithEngineStateDoesNotPark) {
  const std::vector<std::pair<const char*, std::function<void(Request&)>>> cases = {
      {"computed tokens", [](Request& r) { r.num_computed_tokens = 16; }},
      {"an output token", [](Request& r) { r.num_output_tokens = 1; }},
      {"blocks", [](Request& r) { r.block_ids = {3}; }},
      {"finished", [](Request& r) { r.state = RequestState::kFinished; }},
      {"preempted", [](Request& r) { r.timeline.num_preemptions = 1; }},
      {"scheduled", [](Request& r) { r.timeline.scheduled = 5; }},
      {"a cache hit recorded", [](Request& r) { r.num_cached_tokens = 0; }},
      {"logprobs", [](Request& r) { r.last_logprobs = PositionLogprobs{}; }},
  };
  for (const auto& [name, set] : cases) {
    Request r = simulated(1);
    set(r);
    EXPECT_FALSE(ParkedRequests::parkable(r)) << name;
  }
}

TEST(ParkedRequests, ASimulatedRequestTakesUnderAFifteenthOfARequest) {
  ParkedRequests parked;
  for (uint64_t id = 100000; id < 101000; ++id) parked.push(simulated(id));
  EXPECT_LT(parked.bytes() / parked.size(), sizeof(Request) / 15) << parked.bytes();
}

RC_GTEST_PROP(ParkedRequests, RecordsComeBackInOrderAndEqualWhateverIsInterleaved, ()) {
  ParkedRequests parked;
  std::vector<Request> expected;  // the queue's content, oldest first
  size_t next = 0;
  const int ops = *rc::gen::inRange(1, 300);
  for (int i = 0; i < ops; ++i) {
    if (*rc::gen::inRange(0, 3) != 0 || expected.size() == next) {
      Request r;
      r.id = *rc::gen::arbitrary<uint64_t>();
      r.external_id = *rc::gen::container<std::string>(rc::gen::inRange('a', 'z'));
      if (*rc::gen::arbitrary<bool>()) r.parent_id = r.external_id;
      r.prompt_len = *rc::gen::arbitrary<int64_t>();
      r.prompt_tokens = *rc::gen::arbitrary<std::vector<int32_t>>();
      r.prefix_hash_ids = *rc::gen::arbitrary<std::vector<uint64_t>>();
      r.params.max_tokens = *rc::gen::arbitrary<int64_t>();
      r.params.temperature = *rc::gen::arbitrary<double>();
      r.params.seed = *rc::gen::arbitrary<uint64_t>();
      r.priority = *rc::gen::arbitrary<int32_t>();
      r.scripted_output_len = *rc::gen::arbitrary<int64_t>();
      r.timeline.arrival = *rc::gen::inRange<Nanos>(-1, Nanos{1} << 62);
      r.timeline.queued = r.timeline.arrival + *rc::gen::inRange<Nanos>(0, 1'000'000'000);
      parked.push(r);
      expected.push_back(std::move(r));
    } else {
      const std::unique_ptr<Request> back = parked.pop();
      const Request& want = expected[next++];
      RC_ASSERT(back->id == want.id);
      RC_ASSERT(back->external_id == want.external_id);
      RC_ASSERT(back->parent_id == want.parent_id);
      RC_ASSERT(back->prompt_len == want.prompt_len);
      RC_ASSERT(back->prompt_tokens == want.prompt_tokens);
      RC_ASSERT(back->prefix_hash_ids == want.prefix_hash_ids);
      RC_ASSERT(back->params.max_tokens == want.params.max_tokens);
      RC_ASSERT(same_double(back->params.temperature, want.params.temperature));
      RC_ASSERT(back->params.seed == want.params.seed);
      RC_ASSERT(back->priority == want.priority);
      RC_ASSERT(back->scripted_output_len == want.scripted_output_len);
      RC_ASSERT(back->timeline.arrival == want.timeline.arrival);
      RC_ASSERT(back->timeline.queued == want.timeline.queued);
    }
    RC_ASSERT(parked.size() == expected.size() - next);
    size_t seen = next;
    parked.for_each([&](const Request& r) { RC_ASSERT(r.id == expected[seen++].id); });
    RC_ASSERT(seen == expected.size());
  }
}

}  // namespace
}  // namespace llm
