// The API server as one process on llmsim's clock: vLLM's OpenAI server (one asyncio process) and
// llmserve's HTTP front end read each request and tokenize it, hand it to the engine, and
// detokenize and stream every output token, one piece of work at a time. Requests are read first
// come, first served; an output token, once the engine has produced it, goes out as soon as the
// process has finished what it is doing (the read in progress and the tokens before it), ahead of
// requests still waiting to be read. So a burst of requests reaches the engine one read after
// another, while the first of them already stream. Costs are ApiServerCosts
// (backends/sim/api_server_costs.h), rounded to whole nanoseconds.
// Driven in time order: arrive() and deliver() at the replay's current time, advance() at every
// instant of the replay and at next_event().
// Thread-safety: none; one replay drives one process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "backends/sim/api_server_costs.h"
#include "core/clock.h"

namespace llm {

// A request the process has read and tokenized.
struct Ingest {
  size_t id = 0;               // as given to arrive()
  Nanos frontend_arrival = 0;  // its body read: vLLM's arrival time
  Nanos engine_arrival = 0;    // tokenized and handed over: it reaches the engine's queue
};

class ApiServerProcess {
 public:
  explicit ApiServerProcess(const ApiServerCosts& costs);

  // A request of `prompt_tokens` reaches the server at `arrival`.
  void arrive(Nanos arrival, int64_t prompt_tokens, size_t id);
  // Runs the process up to `now`: appends the requests it finished reading by then, in order.
  void advance(Nanos now, std::vector<Ingest>& finished);
  // When the process next starts or finishes a read (kNoTime: none waiting).
  Nanos next_event() const;
  // An output token the engine produced at `time` (the current time): when the client has it.
  Nanos deliver(Nanos time);
  // A stream that ends at `time` without a token (an abort or error): when the client learns it.
  Nanos close(Nanos time) const;

  Nanos busy_total() const { return busy_total_; }  // work given so far

 private:
  struct Waiting {
    Nanos arrival;
    Nanos work;
    size_t id;
  };
  struct Reading {
    Nanos start, end;
    size_t id;
  };
  Nanos next_start() const;  // when the first waiting read can start

  Nanos request_ns_, hop_ns_, per_output_token_ns_, response_ns_;
  double per_prompt_token_ns_;
  std::deque<Waiting> waiting_;
  std::optional<Reading> reading_;
  Nanos reads_free_at_ = 0;    // the last read's end
  Nanos outputs_free_at_ = 0;  // the last output token's end
  Nanos busy_total_ = 0;
};

}  // namespace llm
