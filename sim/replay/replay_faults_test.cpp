// The replay driver's fault points (ReplayFaults): none by default and then nothing changes;
// client aborts end a sequence wherever it is (not yet queued, waiting, mid-prefill, mid-decode),
// on a busy engine when its step completes, and an n > 1 request's children can go one by one.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "backends/sim/presets.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_report.h"
#include "sim/trace/synthetic.h"

namespace llm {
namespace {

ReplayConfig small_engine() {
  ReplayConfig c;
  c.scheduler.block_size = 16;
  c.scheduler.max_model_len = 512;
  c.scheduler.num_gpu_blocks = 200;
  c.scheduler.max_num_seqs = 1;
  c.scheduler.max_num_batched_tokens = 16;
  c.deployment.gpu = *find_gpu_preset("H200");
  c.deployment.model = *find_model_preset("Llama-3.2-1B");
  return c;
}

TraceRequest fault_request(const std::string& id, Nanos arrival, int64_t prompt, int64_t outputs,
                           int32_t n = 1) {
  TraceRequest r;
  r.id = id;
  r.arrival_ns = arrival;
  r.prompt_len = prompt;
  r.output_len = outputs;
  r.n = n;
  return r;
}

// Keeps every finished sequence and the steps.
class Record final : public EngineObserver {
 public:
  void on_finished(const Request& r) override {
    reasons[r.external_id] = r.finish_reason;
    timelines[r.external_id] = r.timeline;
  }
  void on_step(const StepStats& s) override { steps.push_back(s); }
  std::map<std::string, FinishReason> reasons;
  std::map<std::string, Timeline> timelines;
  std::vector<StepStats> steps;
};

std::string jsonl_of(const Trace& trace, const ReplayConfig& config) {
  std::ostringstream out;
  ReplayReport report(&out);
  const std::vector<EngineObserver*> observers(static_cast<size_t>(config.data_parallel_size),
                                               &report);
  run_replay(trace, config, observers);
  return out.str();
}

TEST(ReplayFaults, NoFaultsAreTheDefaultAndOnlyASeedChangesNothing) {
  EXPECT_FALSE(ReplayFaults{}.any());
  const Trace trace = generate_synthetic(parse_synthetic_spec("n=200,rate=50,seqs=2"));
  ReplayConfig config = small_engine();
  config.scheduler.max_num_seqs = 16;
  config.scheduler.max_num_batched_tokens = 2048;
  config.data_parallel_size = 2;
  config.scheduler.max_model_len = 8192;
  config.scheduler.num_gpu_blocks = 1000;
  const std::string plain = jsonl_of(trace, config);
  config.faults.seed = 12345;
  config.faults.engine_slowdown = {1.0, 1.0};
  EXPECT_FALSE(config.faults.any());
  EXPECT_EQ(jsonl_of(trace, config), plain);
}

TEST(ReplayFaults, ClientAbortsEndSequencesWhereverTheyAreAndChildrenGoOneByOne) {
  Trace trace;
  trace.requests = {fault_request("A", 0, 64, 50), fault_request("B", 0, 8, 5),
                    fault_request("D", 0, 8, 5, 3), fault_request("C", 1, 8, 5)};
  ReplayConfig config = small_engine();
  Record plain;
  run_replay(trace, config, plain);
  // A's prefill takes four 16-token steps: an abort after the first is applied at the second's
  // end, mid-prefill. C arrives during the first step and is aborted at once: not yet queued.
  // B waits behind A (max_num_seqs 1). The second abort of B finds it finished.
  const Nanos mid_second_step = plain.steps[0].end + 1;
  config.faults.aborts = {
      {1, 3, -1}, {2, 1, -1}, {mid_second_step, 0, -1}, {mid_second_step, 1, -1}};
  Record first;
  run_replay(trace, config, first);
  // Then the second child of D, after its first token: mid-decode.
  config.faults.aborts.push_back({first.timelines.at("1_D").first_token + 1, 2, 1});
  Record second;
  const ReplayTotals totals = run_replay(trace, config, second);
  for (const char* id : {"A", "B", "C", "1_D"}) {
    EXPECT_EQ(second.reasons.at(id), FinishReason::kAbort) << id;
  }
  EXPECT_EQ(second.reasons.at("0_D"), FinishReason::kStop);
  EXPECT_EQ(second.reasons.at("2_D"), FinishReason::kStop);
  EXPECT_EQ(second.timelines.at("C").queued, second.timelines.at("C").finished);
  EXPECT_EQ(second.timelines.at("A").finished, plain.steps[1].end);
  const auto& a = totals.faults.aborts;
  EXPECT_EQ(a[static_cast<size_t>(AbortState::kUnqueued)], 1);
  EXPECT_EQ(a[static_cast<size_t>(AbortState::kWaiting)], 1);
  EXPECT_EQ(a[static_cast<size_t>(AbortState::kPrefill)], 1);
  EXPECT_EQ(a[static_cast<size_t>(AbortState::kDecode)], 1);
  EXPECT_EQ(a[static_cast<size_t>(AbortState::kFinished)], 1);
  EXPECT_EQ(a[static_cast<size_t>(AbortState::kPreempted)], 0);
}

TEST(ReplayFaults, AFailedStepEndsItsBatchWithErrorAndTheReplayGoesOn) {
  Trace trace;
  trace.requests = {fault_request("A", 0, 8, 20), fault_request("B", 0, 8, 20)};
  ReplayConfig config = small_engine();
  config.faults.backend.failure_probability = 1;  // every step fails
  Record rec;
  const ReplayTotals totals = run_replay(trace, config, rec);
  EXPECT_EQ(rec.reasons.at("A"), FinishReason::kError);
  EXPECT_EQ(rec.reasons.at("B"), FinishReason::kError);
  EXPECT_EQ(totals.faults.failed_steps, 2);
  EXPECT_EQ(totals.sum().num_steps, 2);
}

}  // namespace
}  // namespace llm

namespace llm {
namespace {

// --fault windows in the driver: engine-down fails what the engine holds and re-routes, fails
// what arrives while no engine is up, and restarts the engine; http-5xx answers a seeded share
// without reaching an engine; slow stretches the steps begun in its window.

ReplayConfig two_fault_engines() {
  ReplayConfig c = small_engine();
  c.scheduler.max_num_seqs = 16;
  c.scheduler.max_num_batched_tokens = 2048;
  c.scheduler.max_model_len = 8192;
  c.scheduler.num_gpu_blocks = 1000;
  c.data_parallel_size = 2;
  return c;
}

struct FailedRequest {
  size_t request;
  size_t engine;
  int status;
  Nanos time;
};

// Runs the trace with one Record per engine, noting the hooks' failures, restarts and routes.
struct FaultRun {
  FaultRun(const Trace& trace, const ReplayConfig& config)
      : records(static_cast<size_t>(config.data_parallel_size)) {
    std::vector<EngineObserver*> observers;
    for (Record& r : records) observers.push_back(&r);
    ReplayHooks hooks;
    hooks.on_failed = [this](size_t request, const TraceRequest&, size_t engine, int status,
                             Nanos t) {
      failed.push_back({request, engine, status, t});
    };
    hooks.on_restart = [this](size_t engine, Nanos t) { restarts.push_back({engine, t}); };
    hooks.on_route = [this](size_t request, size_t engine) { routed[request] = engine; };
    totals = run_replay(trace, config, observers, hooks);
  }
  std::vector<Record> records;
  std::vector<FailedRequest> failed;
  std::vector<std::pair<size_t, Nanos>> restarts;
  std::map<size_t, size_t> routed;
  ReplayTotals totals;
};

constexpr Nanos kWindowSec = 1'000'000'000;

Trace steady_trace(int n, Nanos gap, int64_t outputs = 20) {
  Trace t;
  for (int i = 0; i < n; ++i) {
    t.requests.push_back(fault_request("r" + std::to_string(i), i * gap, 64, outputs));
  }
  return t;
}

TEST(ReplayFaultWindows, EngineDownFailsWhatItHoldsAndTheRouterAvoidsIt) {
  // A request every 100 ms for 10 s, each running for a few seconds: engine 1 holds several when
  // it goes down at 3 s.
  const Trace trace = steady_trace(100, kWindowSec / 10, 2000);
  ReplayConfig config = two_fault_engines();
  const FaultRun plain(trace, config);
  EXPECT_TRUE(plain.failed.empty());
  config.faults.windows = {parse_fault("engine-down:1:3s:6s")};
  const FaultRun run(trace, config);
  // Whatever engine 1 held at 3 s (or at the end of its step then) ended with an error.
  int errors = 0;
  for (const auto& [id, reason] : run.records[1].reasons) {
    if (reason != FinishReason::kError) continue;
    ++errors;
    const Nanos end = run.records[1].timelines.at(id).finished;
    EXPECT_GE(end, 3 * kWindowSec) << id;
    EXPECT_LT(end, 3 * kWindowSec + kWindowSec / 2) << id;
  }
  EXPECT_GT(errors, 2);
  EXPECT_EQ(run.totals.faults.down_errors, errors);
  // Exactly those it still held: every engine-1 request of the plain run that arrived before 3 s
  // and was still running half a second later failed; none that had finished by 3 s did.
  for (const auto& [id, t] : plain.records[1].timelines) {
    if (t.arrival >= 3 * kWindowSec) continue;
    const FinishReason got = run.records[1].reasons.at(id);
    if (t.finished <= 3 * kWindowSec) {
      EXPECT_EQ(got, FinishReason::kStop) << id;
    }
    if (t.finished > 3 * kWindowSec + kWindowSec / 2) {
      EXPECT_EQ(got, FinishReason::kError) << id;
    }
  }
  // Arrivals from 3 s to 6 s all went to engine 0; before and after, to both.
  std::map<size_t, int> during, after;
  for (const auto& [request, engine] : run.routed) {
    const Nanos arrival = trace.requests[request].arrival_ns;
    if (arrival >= 3 * kWindowSec && arrival < 6 * kWindowSec) ++during[engine];
    if (arrival >= 6 * kWindowSec) ++after[engine];
  }
  EXPECT_EQ(during[1], 0);
  EXPECT_EQ(during[0], 30);
  EXPECT_GT(after[1], 10);
  ASSERT_EQ(run.restarts.size(), 1u);
  EXPECT_EQ(run.restarts[0], std::make_pair(size_t{1}, 6 * kWindowSec));
  EXPECT_TRUE(run.failed.empty());  // engine 0 was up throughout
}

TEST(ReplayFaultWindows, RequestsFailAtOnceWhileNoEngineIsUp) {
  const Trace trace = steady_trace(50, kWindowSec / 10);
  ReplayConfig config = small_engine();
  config.scheduler.max_num_seqs = 16;
  config.scheduler.max_num_batched_tokens = 2048;
  config.faults.windows = {parse_fault("engine-down:0:1s:2s")};
  const FaultRun run(trace, config);
  ASSERT_EQ(run.failed.size(), 10u);
  for (size_t k = 0; k < run.failed.size(); ++k) {
    EXPECT_EQ(run.failed[k].request, 10 + k);
    EXPECT_EQ(run.failed[k].engine, kNoEngine);
    EXPECT_EQ(run.failed[k].status, 503);
    EXPECT_EQ(run.failed[k].time, trace.requests[10 + k].arrival_ns);
    EXPECT_EQ(run.records[0].reasons.count("r" + std::to_string(10 + k)), 0u);
  }
  EXPECT_EQ(run.totals.faults.unroutable, 10);
  // Those after 2 s ran normally.
  EXPECT_EQ(run.records[0].reasons.at("r30"), FinishReason::kStop);
}

TEST(ReplayFaultWindows, Http5xxAnswersASeededShareWithoutReachingAnEngine) {
  const Trace trace = steady_trace(400, kWindowSec / 20);
  ReplayConfig config = two_fault_engines();
  config.faults.windows = {parse_fault("http-5xx:25:5s:15s")};
  const FaultRun run(trace, config);
  int in_window = 0;
  for (const FailedRequest& f : run.failed) {
    const Nanos arrival = trace.requests[f.request].arrival_ns;
    EXPECT_GE(arrival, 5 * kWindowSec);
    EXPECT_LT(arrival, 15 * kWindowSec);
    EXPECT_EQ(f.status, 500);
    EXPECT_LT(f.engine, 2u);
    EXPECT_EQ(run.routed.count(f.request), 0u);  // never reached an engine
    ++in_window;
  }
  EXPECT_NEAR(in_window, 50, 20);  // 25% of the 200 arrivals in the window
  EXPECT_EQ(run.totals.faults.http_5xx, in_window);
  EXPECT_EQ(run.totals.sum().num_requests + in_window, 400);
  // Deterministic: the same requests fail again; another --seed fails others.
  const FaultRun again(trace, config);
  ASSERT_EQ(again.failed.size(), run.failed.size());
  for (size_t k = 0; k < run.failed.size(); ++k) {
    EXPECT_EQ(again.failed[k].request, run.failed[k].request);
  }
  config.seed = 99;
  const FaultRun other(trace, config);
  bool differs = other.failed.size() != run.failed.size();
  for (size_t k = 0; !differs && k < run.failed.size(); ++k) {
    differs = other.failed[k].request != run.failed[k].request;
  }
  EXPECT_TRUE(differs);
}

TEST(ReplayFaultWindows, SlowStretchesTheStepsBegunInItsWindow) {
  const Trace trace = steady_trace(40, kWindowSec / 4);
  ReplayConfig config = two_fault_engines();
  const FaultRun plain(trace, config);
  config.faults.windows = {parse_fault("slow:0:3:2s:6s")};
  const FaultRun run(trace, config);
  // Steps that begin inside the window take three times as long as the same steps without it;
  // until then, the runs are identical.
  const std::vector<StepStats>& slow = run.records[0].steps;
  const std::vector<StepStats>& base = plain.records[0].steps;
  size_t k = 0;
  for (; k < slow.size() && slow[k].start < 2 * kWindowSec; ++k) {
    ASSERT_LT(k, base.size());
    EXPECT_EQ(slow[k].end - slow[k].start, base[k].end - base[k].start) << k;
  }
  int stretched = 0;
  for (const StepStats& s : slow) {
    if (s.start >= 2 * kWindowSec && s.start < 6 * kWindowSec) ++stretched;
  }
  EXPECT_GT(stretched, 3);
  EXPECT_EQ(run.totals.faults.slowed_steps, stretched);
  // Engine 1 is untouched by the window: its first steps match the plain run's.
  ASSERT_FALSE(run.records[1].steps.empty());
  EXPECT_EQ(run.records[1].steps[0].end - run.records[1].steps[0].start,
            plain.records[1].steps[0].end - plain.records[1].steps[0].start);
  // The E2E of requests of engine 0 in the window grew.
  Nanos plain_e2e = 0, slow_e2e = 0;
  for (const auto& [id, t] : plain.records[0].timelines) plain_e2e += t.finished - t.arrival;
  for (const auto& [id, t] : run.records[0].timelines) slow_e2e += t.finished - t.arrival;
  EXPECT_GT(slow_e2e, plain_e2e);
}

TEST(ReplayFaultWindows, WindowsChangeNothingOutsideThem) {
  // A window after the last request finished leaves the run as it was.
  const Trace trace = steady_trace(20, kWindowSec / 10);
  ReplayConfig config = two_fault_engines();
  const std::string plain = jsonl_of(trace, config);
  config.faults.windows = {parse_fault("slow:0:5:1h:2h"), parse_fault("http-5xx:50:1h:2h")};
  EXPECT_EQ(jsonl_of(trace, config), plain);
}

}  // namespace
}  // namespace llm
