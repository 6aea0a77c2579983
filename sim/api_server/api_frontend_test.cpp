// The API server in front of a replay (ReplayConfig::api_server): what the client sees of each
// sequence against what the engine does, for one request, for a burst, and for any trace with a
// server that costs nothing (then nothing may change); a step's tokens handed over at once
// (on_tokens) give what one call per token gives.
#include "sim/api_server/api_frontend.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "backends/sim/presets.h"
#include "sim/replay/replay.h"

namespace llm {
namespace {

ReplayConfig frontend_engine(int64_t max_num_seqs = 256) {
  ReplayConfig c;
  c.scheduler.block_size = 16;
  c.scheduler.max_model_len = 4096;
  c.scheduler.num_gpu_blocks = 20'000;
  c.scheduler.max_num_batched_tokens = 8192;
  c.scheduler.max_num_seqs = static_cast<int32_t>(max_num_seqs);
  c.deployment.gpu = *find_gpu_preset("H100-SXM");
  c.deployment.model = *find_model_preset("Llama-3.1-8B");
  return c;
}

ApiServerCosts frontend_costs(double request, double per_prompt, double hop, double per_out,
                              double response) {
  ApiServerCosts s;
  s.request_ns = request;
  s.per_prompt_token_ns = per_prompt;
  s.hop_ns = hop;
  s.per_output_token_ns = per_out;
  s.response_ns = response;
  return s;
}

// Each sequence's engine timeline and client times, by external id.
struct FrontendSeen {
  Timeline engine;
  ClientTimes client;
  bool has_client = false;
  int64_t tokens = 0;
};

class FrontendRecorder final : public EngineObserver {
 public:
  void on_finished(const Request& r) override {
    FrontendSeen& s = seen[r.external_id];
    s.engine = r.timeline;
    s.tokens = r.num_output_tokens;
  }
  std::map<std::string, FrontendSeen> seen;
};

std::map<std::string, FrontendSeen> replay_seen(const Trace& trace, const ReplayConfig& config) {
  FrontendRecorder recorder;
  ReplayHooks hooks;
  hooks.on_client_times = [&recorder](size_t engine, const Request& r, const ClientTimes& t) {
    EXPECT_EQ(engine, 0u);
    recorder.seen[r.external_id].client = t;
    recorder.seen[r.external_id].has_client = true;
  };
  run_replay(trace, config, {&recorder}, hooks);
  return recorder.seen;
}

TraceRequest frontend_request(const std::string& id, Nanos arrival, int64_t prompt,
                              int64_t output) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = arrival;
  r.prompt_len = prompt;
  r.output_len = output;
  return r;
}

// One request on an idle engine: the engine has it after the read, the tokenization and the hop;
// the client has each token after its detokenization and the response latency.
TEST(ApiFrontend, OneRequestOnAnIdleEngine) {
  Trace trace;
  trace.requests = {frontend_request("a", 1'000'000, 100, 4)};
  ReplayConfig config = frontend_engine();
  const auto without = replay_seen(trace, config);
  config.api_server = frontend_costs(1e6, 1000, 2e6, 30e3, 0.5e6);
  const auto with = replay_seen(trace, config);
  const FrontendSeen& a = with.at("a");
  const FrontendSeen& plain = without.at("a");
  ASSERT_TRUE(a.has_client);
  EXPECT_FALSE(plain.has_client);
  EXPECT_EQ(a.client.server_arrival, 1'000'000);
  EXPECT_EQ(a.engine.arrival, 2'000'000);                       // the body read (1 ms)
  EXPECT_EQ(a.engine.queued, 2'000'000 + 100'000 + 2'000'000);  // tokenized, then the hop
  // The engine's own intervals do not change; the client's add the server's time.
  EXPECT_EQ(a.engine.first_token - a.engine.queued, plain.engine.first_token - plain.engine.queued);
  EXPECT_EQ(a.client.first_token, a.engine.first_token + 30'000 + 500'000);
  EXPECT_EQ(a.client.finished, a.engine.last_token + 30'000 + 500'000);
  EXPECT_EQ(a.tokens, 4);
}

// 200 requests at one instant: the API process reads and tokenizes them one by one, so their
// first tokens spread over at least 200 x (its time per request), where without it the engine
// returns them within a few steps.
TEST(ApiFrontend, ABurstSpreadsFirstTokensOverTheProcessTime) {
  Trace trace;
  for (int i = 0; i < 200; ++i)
    trace.requests.push_back(frontend_request(std::to_string(i), 0, 64, 8));
  ReplayConfig config = frontend_engine();
  auto spread = [](const std::map<std::string, FrontendSeen>& seen, bool client) {
    Nanos lo = INT64_MAX, hi = 0;
    for (const auto& [id, s] : seen) {
      const Nanos t = client ? s.client.first_token : s.engine.first_token;
      lo = std::min(lo, t);
      hi = std::max(hi, t);
    }
    return hi - lo;
  };
  const Nanos engine_only = spread(replay_seen(trace, config), false);
  config.api_server = frontend_costs(1.5e6, 0, 1e6, 20e3, 0);
  const Nanos client = spread(replay_seen(trace, config), true);
  // Without the API server the 200 first tokens come out of the two prefill steps of 12,800
  // prompt tokens (about 0.1 s on the calibrated H100-SXM); with it they spread over at least
  // 199 reads of 1.5 ms.
  EXPECT_LT(engine_only, 150'000'000);
  EXPECT_GE(client, 199 * 1'500'000);
  EXPECT_LT(client, 199 * 1'500'000 + 150'000'000);
}

// Four API processes (vLLM's --api-server-count 4) read a burst four at a time: request k is
// process k mod 4's, so requests 0-3 are read together, 4-7 one read later, and the last one
// after a quarter of one process's reads.
TEST(ApiFrontend, ProcessesShareABurstByRequestIndex) {
  Trace trace;
  for (int i = 0; i < 200; ++i)
    trace.requests.push_back(frontend_request(std::to_string(i), 0, 64, 8));
  ReplayConfig config = frontend_engine();
  config.api_server = frontend_costs(1.5e6, 0, 1e6, 20e3, 0);
  const auto one = replay_seen(trace, config);
  config.api_server_count = 4;
  const auto four = replay_seen(trace, config);
  ASSERT_EQ(four.size(), 200u);
  // The engine's arrival is the end of the body's read. Before the first token comes out (its
  // step ends after 7 ms), reads are back to back.
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(four.at(std::to_string(i)).engine.arrival, (i / 4 + 1) * 1'500'000) << i;
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(one.at(std::to_string(i)).engine.arrival, (i + 1) * 1'500'000) << i;
  }
  // The last read: 50 reads into its process (plus the tokens streamed between reads), against
  // 200 for one process.
  const Nanos last_of_four = four.at("199").engine.arrival;
  EXPECT_GE(last_of_four, 50 * 1'500'000);
  EXPECT_LT(last_of_four, 50 * 1'500'000 + 40'000'000);
  EXPECT_GE(one.at("199").engine.arrival, 200 * 1'500'000);
}

// How many API processes a replay runs: --api-server-count, else one per engine (vLLM's default
// for `vllm serve --data-parallel-size N` with its internal load balancer).
TEST(ApiFrontend, ProcessesDefaultToOnePerEngine) {
  struct Row {
    int32_t data_parallel_size, api_server_count;
    size_t processes;
  };
  for (const Row& row : {Row{1, 0, 1}, Row{4, 0, 4}, Row{4, 1, 1}, Row{1, 3, 3}, Row{6, 2, 2}}) {
    ReplayConfig config;
    config.data_parallel_size = row.data_parallel_size;
    config.api_server_count = row.api_server_count;
    EXPECT_EQ(api_server_processes(config), row.processes)
        << row.data_parallel_size << " engines, --api-server-count " << row.api_server_count;
  }
}

// (request id, time, itl) of every token an engine observer hears of.
struct TokenLog final : EngineObserver {
  std::vector<std::tuple<uint64_t, Nanos, Nanos>> seen;
  void on_token(const Request& r, Nanos time, Nanos itl_ns) override {
    seen.emplace_back(r.id, time, itl_ns);
  }
};

// The engine hands the API server a step's tokens at once (on_tokens): each sequence's client
// times, and what the engine's own observer hears, are those of one on_token per token.
RC_GTEST_PROP(ApiFrontend, OnTokensGivesTheClientTimesOfOneCallPerToken, ()) {
  const auto n = *rc::gen::inRange<size_t>(1, 12);
  const auto steps = *rc::gen::inRange(1, 30);
  struct Step {
    Nanos time;
    std::vector<size_t> seqs;  // those that sample, in batch order
  };
  std::vector<Step> script;
  Nanos t = 0;
  for (int i = 0; i < steps; ++i) {
    t += *rc::gen::inRange<Nanos>(1, 100'000);  // steps shorter than the per-token cost, too
    script.push_back({t, *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, n))});
  }
  std::map<uint64_t, std::tuple<Nanos, Nanos, Nanos>> client[2];
  std::vector<std::tuple<uint64_t, Nanos, Nanos>> heard[2];
  for (int batched = 0; batched < 2; ++batched) {
    TokenLog inner;
    ApiFrontend frontend(frontend_costs(1e6, 1000, 2e6, 30e3, 0.5e6), {&inner},
                         [&](size_t, const Request& r, const ClientTimes& c) {
                           client[batched][r.id] = {c.server_arrival, c.first_token, c.finished};
                         });
    EngineObserver& tap = *frontend.observer(0);
    std::vector<Request> seqs(n);
    for (size_t i = 0; i < n; ++i) {
      seqs[i].id = i;
      frontend.expect(static_cast<Nanos>(i));
      tap.on_queued(seqs[i]);
    }
    for (const Step& step : script) {
      std::vector<TokenEvent> events;
      for (size_t i : step.seqs) events.push_back({&seqs[i], static_cast<Nanos>(i) + 1});
      if (batched) {
        tap.on_tokens(events, step.time);
      } else {
        for (const TokenEvent& e : events) tap.on_token(*e.request, step.time, e.itl_ns);
      }
    }
    for (Request& r : seqs) {
      r.timeline.finished = t;
      tap.on_finished(r);
    }
    heard[batched] = inner.seen;
  }
  RC_ASSERT(client[0] == client[1]);
  RC_ASSERT(heard[0] == heard[1]);
}

// An API server that costs nothing changes nothing: every sequence's engine timeline equals the
// replay's without one, and the client sees the engine's times.
RC_GTEST_PROP(ApiFrontend, AFreeServerChangesNothing, ()) {
  const auto n = *rc::gen::inRange(1, 40);
  Trace trace;
  Nanos t = 0;
  for (int i = 0; i < n; ++i) {
    t += *rc::gen::inRange(0, 50'000'000);
    trace.requests.push_back(frontend_request(std::to_string(i), t, *rc::gen::inRange(1, 600),
                                              *rc::gen::inRange(1, 40)));
  }
  ReplayConfig config = frontend_engine(*rc::gen::inRange(1, 16));
  const auto without = replay_seen(trace, config);
  config.api_server = frontend_costs(0, 0, 0, 0, 0);
  const auto with = replay_seen(trace, config);
  RC_ASSERT(with.size() == without.size());
  for (const auto& [id, s] : with) {
    const FrontendSeen& w = without.at(id);
    RC_ASSERT(s.engine.arrival == w.engine.arrival);
    RC_ASSERT(s.engine.queued == w.engine.queued);
    RC_ASSERT(s.engine.first_token == w.engine.first_token);
    RC_ASSERT(s.engine.finished == w.engine.finished);
    RC_ASSERT(s.client.server_arrival == w.engine.arrival);
    RC_ASSERT(s.client.first_token == w.engine.first_token);
    RC_ASSERT(s.client.finished == w.engine.finished);
  }
}

// Whatever the costs: the client never sees a token before the engine made it plus the server's
// own per-token work, nor the stream's end before the engine finished the request.
RC_GTEST_PROP(ApiFrontend, TheClientNeverSeesAheadOfTheEngine, ()) {
  Trace trace;
  Nanos t = 0;
  const auto n = *rc::gen::inRange(1, 30);
  for (int i = 0; i < n; ++i) {
    t += *rc::gen::inRange(0, 5'000'000);
    trace.requests.push_back(frontend_request(std::to_string(i), t, *rc::gen::inRange(1, 300),
                                              *rc::gen::inRange(1, 20)));
  }
  ReplayConfig config = frontend_engine(*rc::gen::inRange(1, 8));
  const double per_out = *rc::gen::inRange(0, 200'000);
  config.api_server =
      frontend_costs(*rc::gen::inRange(0, 3'000'000), *rc::gen::inRange(0, 2'000),
                     *rc::gen::inRange(0, 3'000'000), per_out, *rc::gen::inRange(0, 1'000'000));
  for (const auto& [id, s] : replay_seen(trace, config)) {
    RC_ASSERT(s.has_client);
    RC_ASSERT(s.engine.arrival >=
              s.client.server_arrival + static_cast<Nanos>(config.api_server->request_ns));
    RC_ASSERT(s.client.first_token >= s.engine.first_token + static_cast<Nanos>(per_out));
    RC_ASSERT(s.client.finished >= s.engine.finished);
  }
}

}  // namespace
}  // namespace llm
