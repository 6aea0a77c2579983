// Helpers for per-step scheduler tables (in the manner of TensorRT-LLM's capacity-scheduler tests):
// build small scripted requests, step an EngineCore one step at a time and compare each step's
// batch, running set and waiting set with a row of expected strings; a Recorder observer keeps
// what each finished request ended with; TableEngine bundles them. Used by core/scheduler_test.cpp
// and core/engine_core_test.cpp.
// Thread-safety: none; single-threaded tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/engine_core.h"
#include "core/engine_observer.h"
#include "core/request.h"
#include "core/scheduler.h"
#include "core/scheduler_config.h"
#include "core/testing/scripted_backend.h"

namespace llm::testing {

// What a request looked like when it finished.
struct Finished {
  FinishReason reason;
  int64_t outputs;
  Timeline timeline;
  int64_t cached;  // num_cached_tokens: prompt tokens hit in the prefix cache at first admission
};

// Records finished requests (by external id) and preemptions (in order).
class Recorder final : public EngineObserver {
 public:
  void on_finished(const Request& r) override {
    finished[r.external_id] = {r.finish_reason, r.num_output_tokens, r.timeline,
                               r.num_cached_tokens};
  }
  void on_preempted(const Request& r) override { preempted.push_back(r.external_id); }
  std::map<std::string, Finished> finished;
  std::vector<std::string> preempted;
};

// A length-only request: `prompt` tokens, stopping (EOS) after `outputs` tokens; requests with
// different salts share no prompt blocks, equal salts share all of them. `priority` matters only
// under SchedulingPolicy::kPriority (lower runs first).
inline std::unique_ptr<Request> make(const std::string& id, int64_t prompt, int64_t outputs,
                                     uint64_t salt, int32_t priority = 0) {
  auto r = std::make_unique<Request>();
  r->external_id = id;
  r->prompt_len = prompt;
  r->scripted_output_len = outputs;
  r->prompt_salt = salt;
  r->priority = priority;
  return r;
}

// External ids concatenated: "AB".
inline std::string ids(const std::vector<Request*>& rs) {
  std::string s;
  for (const Request* r : rs) s += r->external_id;
  return s;
}

// The waiting queue's external ids from its head: "CB".
inline std::string waiting_ids(const Scheduler& s) {
  std::string out;
  s.waiting().for_each([&out](const Request* r) { out += r->external_id; });
  return out;
}

// A step's batch as "A:6 B:2" (tokens per sequence, in batch order).
inline std::string batch(const SchedulerOutput& b) {
  std::string s;
  for (const ScheduledSeq& q : b.seqs) {
    if (!s.empty()) s += " ";
    s += q.request->external_id + ":" + std::to_string(q.num_new_tokens);
  }
  return s;
}

struct StepRow {
  const char* batch;    // "A:6 B:2": tokens per sequence this step
  const char* running;  // after scheduling
  const char* waiting;  // after scheduling
};

// Runs one step per row, checking it; then, if idle_after, that nothing more can be scheduled.
inline void expect_steps(EngineCore& engine, SimClock& clock, const std::vector<StepRow>& rows,
                         bool idle_after = true) {
  for (size_t i = 0; i < rows.size(); ++i) {
    Nanos duration = 0;
    ASSERT_TRUE(engine.begin_step(&duration)) << "step " << i + 1;
    EXPECT_EQ(batch(engine.last_batch()), rows[i].batch) << "step " << i + 1;
    EXPECT_EQ(ids(engine.scheduler().running()), rows[i].running) << "step " << i + 1;
    EXPECT_EQ(waiting_ids(engine.scheduler()), rows[i].waiting) << "step " << i + 1;
    clock.set(clock.now() + duration);
    engine.end_step(clock.now());
  }
  if (!idle_after) return;
  Nanos duration = 0;
  EXPECT_FALSE(engine.begin_step(&duration)) << "expected the engine to be idle";
}

// The tables' usual configuration: blocks of 4 tokens, prefix caching off, FCFS; num_gpu_blocks
// includes the null block (usable: one fewer).
inline SchedulerConfig table_config(int32_t num_gpu_blocks, int64_t max_num_batched_tokens,
                                    int64_t max_model_len) {
  SchedulerConfig config;
  config.block_size = 4;
  config.num_gpu_blocks = num_gpu_blocks;
  config.max_num_batched_tokens = max_num_batched_tokens;
  config.max_model_len = max_model_len;
  config.enable_prefix_caching = false;
  return config;
}

// An EngineCore on a SimClock and a ScriptedBackend (10 ns per step) that reports to a Recorder.
struct TableEngine {
  explicit TableEngine(const SchedulerConfig& config) : engine(config, backend, clock, &rec) {}
  // expect_steps on this engine.
  void expect(const std::vector<StepRow>& rows, bool idle_after = true) {
    expect_steps(engine, clock, rows, idle_after);
  }
  const PrefixCacheCounters& counters() const { return engine.scheduler().kv().counters(); }
  const Finished& finished(const std::string& id) const { return rec.finished.at(id); }

  SimClock clock;
  ScriptedBackend backend;
  Recorder rec;
  EngineCore engine;
};

}  // namespace llm::testing
