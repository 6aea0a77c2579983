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
