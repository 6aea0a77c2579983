// A long synthetic load for tests, demos and benchmarks of long replays ("synthetic-week:..."):
// a production-like service over whole days, streamed (memory does not grow with its length).
//  - Arrivals: a Poisson process whose rate follows a diurnal cycle (1 + diurnal x cos over 24 h,
//    peak at 15:00), a weekly one (Saturday and Sunday at `weekend` times a weekday, day 0 a
//    Monday; the mean over a week stays `rate`), and bursts (Poisson, bursts_per_day of them,
//    each burst_len long at burst_factor times the rate), drawn by thinning.
//  - A mix of conversation and code: a `code` share of the requests is code completion (prompt
//    lognormal median 2048 in [16, 7680], output lognormal median 28 in [1, 1024], one of 8
//    shared 512-token system prompts); the rest chat (ShareGPT-like lengths, see sharegpt_like).
//  - Prefix reuse: with probability `followup` a chat request is the next turn of one of the
//    last 4,096 conversations (its prompt = the previous prompt + answer + a new message, sharing
//    the previous prompt's full blocks), while it fits in 8,192 tokens.
// Every draw comes from llm::Rng seeded by `seed`. Thread-safety: reentrant functions; one stream
// per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "sim/trace/request_stream.h"

namespace llm {

struct WeekSpec {
  uint64_t seed = 1;
  double days = 7;                   // length of the trace
  double rate_per_s = 45;            // mean over a week (45/s: about 27M requests in 7 days)
  double diurnal = 0.6;              // amplitude of the daily cycle, in [0, 1)
  double weekend = 0.6;              // weekend rate / weekday rate, > 0
  double bursts_per_day = 4;         // >= 0
  double burst_len_s = 300;          // > 0
  double burst_factor = 3;           // >= 1
  double code = 0.3;                 // share of code requests, in [0, 1]
  double followup = 0.5;             // share of chat requests that continue a conversation, [0, 1]
  int64_t max_requests = INT64_MAX;  // stop after this many (n=)
};

// Parses "synthetic-week:key=value,..." (keys: seed, days, rate, diurnal, weekend, bursts,
// burst_len (seconds), burst_factor, code, followup, n). Throws TraceError
// "synthetic-week: KEY: what is wrong".
WeekSpec parse_week_spec(const std::string& text);
std::string format_week_spec(const WeekSpec& spec);

class WeekStream final : public RequestStream {
 public:
  explicit WeekStream(const WeekSpec& spec);
  ~WeekStream() override;
  const TraceRequest* next() override;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace llm
