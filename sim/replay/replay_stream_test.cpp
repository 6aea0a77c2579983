// A replay that reads its trace as a stream (run_replay(RequestStream&, ...)) holds only the
// requests in flight: it reads a request only when it arrives, so the requests read but not yet
// finished stay few however long the trace; and it gives the same results as the trace in memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "backends/sim/presets.h"
#include "sim/replay/replay.h"
#include "sim/trace/synthetic.h"

namespace llm {
namespace {

ReplayConfig stream_engine() {
  ReplayConfig c;
  c.scheduler.block_size = 16;
  c.scheduler.max_model_len = 4096;
  c.scheduler.num_gpu_blocks = 4000;
  c.scheduler.max_num_batched_tokens = 2048;
  c.deployment.gpu = *find_gpu_preset("H200");
  c.deployment.model = *find_model_preset("Llama-3.2-1B");
  return c;
}

// Counts the requests read from `inner` and, at each read, how many were read but not finished.
class WatchedRequestStream final : public RequestStream {
 public:
  WatchedRequestStream(RequestStream& inner, const int64_t& finished)
      : inner_(inner), finished_(finished) {}
  const TraceRequest* next() override {
    const TraceRequest* r = inner_.next();
    if (r) {
      ++read_;
      most_unfinished_ = std::max(most_unfinished_, read_ - finished_);
    }
    return r;
  }
  int64_t read() const { return read_; }
  int64_t most_unfinished() const { return most_unfinished_; }

 private:
  RequestStream& inner_;
  const int64_t& finished_;
  int64_t read_ = 0, most_unfinished_ = 0;
};

struct FinishedCounter final : EngineObserver {
  void on_finished(const Request&) override { ++count; }
  int64_t count = 0;
};

TEST(ReplayStream, HoldsOnlyTheRequestsInFlight) {
  const SyntheticSpec spec = parse_synthetic_spec("synthetic:n=20000,rate=20,seed=7");
  for (int64_t n : {int64_t{5000}, int64_t{20000}}) {
    SyntheticSpec s = spec;
    s.num_requests = n;
    SyntheticStream synthetic(s);
    FinishedCounter finished;
    WatchedRequestStream watched(synthetic, finished.count);
    ReplayConfig c = stream_engine();
    const std::vector<EngineObserver*> observers = {&finished};
    run_replay(watched, c, observers);
    EXPECT_EQ(watched.read(), n);
    EXPECT_EQ(finished.count, n);
    // At 20/s the engine keeps up: a few dozen in flight, whatever the trace's length.
    EXPECT_LT(watched.most_unfinished(), 200) << n;
  }
}

TEST(ReplayStream, GivesTheSameTotalsAsTheTraceInMemory) {
  const SyntheticSpec spec = parse_synthetic_spec("synthetic:n=2000,rate=30,seed=3,prefix=0.5");
  const Trace trace = generate_synthetic(spec);
  for (bool api_server : {false, true}) {
    ReplayConfig c = stream_engine();
    c.data_parallel_size = 2;
    if (api_server) c.api_server = ApiServerCosts{20000, 50, 100000, 200, 50000, ""};
    EngineObserver q1, q2, q3, q4;
    const ReplayTotals a = run_replay(trace, c, {&q1, &q2});
    SyntheticStream stream(spec);
    const ReplayTotals b = run_replay(stream, c, {&q3, &q4});
    EXPECT_EQ(a.end_time, b.end_time);
    EXPECT_EQ(a.sum().num_steps, b.sum().num_steps);
    EXPECT_EQ(a.sum().prefix_hits, b.sum().prefix_hits);
    EXPECT_EQ(a.sum().num_sequences, b.sum().num_sequences);
  }
}

}  // namespace
}  // namespace llm
