// The API process: reads first come first served, output tokens ahead of waiting reads but
// behind the read in progress; exact times for a table of work, and invariants (RapidCheck).
#include "sim/api_server/api_server_process.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <vector>

namespace llm {
namespace {

ApiServerCosts process_costs(double request, double per_prompt, double hop, double per_out,
                             double response) {
  ApiServerCosts c;
  c.request_ns = request;
  c.per_prompt_token_ns = per_prompt;
  c.hop_ns = hop;
  c.per_output_token_ns = per_out;
  c.response_ns = response;
  return c;
}

// Advances the process through every event up to `until`, as a replay would.
std::vector<Ingest> run_until(ApiServerProcess& p, Nanos now, Nanos until) {
  std::vector<Ingest> out;
  p.advance(now, out);
  while (p.next_event() != kNoTime && p.next_event() <= until) p.advance(p.next_event(), out);
  return out;
}

TEST(ApiServerProcess, AnIdleProcessReadsTokenizesAndHandsOver) {
  ApiServerProcess p(process_costs(1000, 2.5, 300, 50, 7));
  p.arrive(10'000, 100, 4);
  const std::vector<Ingest> in = run_until(p, 10'000, 1'000'000);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].id, 4u);
  EXPECT_EQ(in[0].frontend_arrival, 11'000);             // read: 1000 ns
  EXPECT_EQ(in[0].engine_arrival, 10'000 + 1250 + 300);  // tokenized (100 x 2.5), then the hop
  EXPECT_EQ(p.deliver(20'000), 20'000 + 50 + 7);
  EXPECT_EQ(p.close(30'000), 30'007);
  EXPECT_EQ(p.busy_total(), 1250 + 50);
  EXPECT_EQ(p.next_event(), kNoTime);
}

// Three requests at one instant are read one after another; a token produced during the second
// read goes out when that read ends, before the third is read.
TEST(ApiServerProcess, TokensGoOutBetweenTheReadsOfABurst) {
  ApiServerProcess p(process_costs(1000, 0, 0, 100, 0));
  for (size_t i = 0; i < 3; ++i) p.arrive(0, 10, i);
  std::vector<Ingest> in = run_until(p, 0, 1500);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].engine_arrival, 1000);
  EXPECT_EQ(p.deliver(1500), 2100);  // behind read 2 (1000-2000)
  const std::vector<Ingest> rest = run_until(p, 1500, 10'000);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_EQ(rest[0].engine_arrival, 2000);
  EXPECT_EQ(rest[1].engine_arrival, 3100);  // read 3 starts after the token (2000-2100)
  EXPECT_EQ(p.deliver(20'000), 20'100);     // idle again by then
}

TEST(ApiServerProcess, CostsRoundToWholeNanoseconds) {
  ApiServerProcess p(process_costs(0.4, 0.3, 0, 0.6, 0));
  p.arrive(0, 5, 0);
  const std::vector<Ingest> in = run_until(p, 0, 100);
  ASSERT_EQ(in.size(), 1u);
  EXPECT_EQ(in[0].engine_arrival, 2);  // round(0.4) + round(1.5)
  EXPECT_EQ(p.deliver(10), 11);
}

// Whatever the costs, arrivals and tokens: every request is read once, in arrival order, none
// before its arrival plus its own work and hop; tokens go out in order and never before their
// own work; and the process never does more work than it was given.
RC_GTEST_PROP(ApiServerProcess, ReadsKeepOrderAndNeverBeatTheirOwnWork, ()) {
  const auto request = *rc::gen::inRange<int>(0, 5'000);
  const auto per_token = *rc::gen::inRange<int>(0, 50);
  const auto hop = *rc::gen::inRange<int>(0, 5'000);
  const auto per_out = *rc::gen::inRange<int>(0, 3'000);
  ApiServerProcess p(process_costs(request, per_token, hop, per_out, 0));
  const auto events = *rc::gen::container<std::vector<std::pair<int, bool>>>(
      rc::gen::pair(rc::gen::inRange<int>(0, 3'000), rc::gen::arbitrary<bool>()));
  const auto prompt = *rc::gen::inRange<int>(1, 2'000);
  Nanos t = 0, last_delivery = 0;
  size_t arrived = 0;
  std::vector<Nanos> arrival_of;
  std::vector<Ingest> done;
  for (const auto& [gap, is_token] : events) {
    t += gap;
    p.advance(t, done);
    while (p.next_event() != kNoTime && p.next_event() <= t) p.advance(p.next_event(), done);
    if (is_token) {
      const Nanos d = p.deliver(t);
      RC_ASSERT(d >= t + per_out);
      RC_ASSERT(d >= last_delivery);
      last_delivery = d;
    } else {
      p.arrive(t, prompt, arrived++);
      arrival_of.push_back(t);
    }
  }
  while (p.next_event() != kNoTime) p.advance(p.next_event(), done);
  RC_ASSERT(done.size() == arrived);
  Nanos previous = 0;
  for (size_t i = 0; i < done.size(); ++i) {
    RC_ASSERT(done[i].id == i);
    RC_ASSERT(done[i].engine_arrival >= previous);
    RC_ASSERT(done[i].frontend_arrival >= arrival_of[i] + request);
    RC_ASSERT(done[i].engine_arrival >=
              done[i].frontend_arrival + static_cast<Nanos>(per_token) * prompt + hop);
    previous = done[i].engine_arrival;
  }
}

}  // namespace
}  // namespace llm
