// BM_ScheduleCall: the cost of one Scheduler::schedule() call in the steady state the issue names:
// 256 requests running, all in decode, and 1,000 requests waiting (running is capped by
// max_num_seqs = 256, so the waiting queue cannot drain). Goal: at most 20 microseconds.
//
// Method. schedule() mutates what it schedules (num_computed_tokens, KV slots), so the same state
// cannot simply be re-timed. Each benchmark iteration is a real engine step pair driven by hand:
//   1. schedule(now, out)                               <- timed (manual timing, steady_clock)
//   2. apply the step: every sampled sequence appends one output token, as EngineCore::end_step
//      does; nothing ever finishes                      <- not timed
// So every timed call sees a genuine decode state: 256 running sequences that each want exactly
// one token, KV blocks that fill up and get hashed into the prefix cache every block_size steps,
// and 1,000 waiting requests. The loop asserts (SkipWithError) that each timed call scheduled
// exactly 256 one-token sequences, preempted nothing and left 256 running and 1,000 waiting.
//
// Contexts grow by one token per step; to keep them realistic (prompts of 128..1151 tokens plus at
// most kRecycleEvery outputs) and the KV pool from filling, every kRecycleEvery steps the running
// requests are removed, reset into fresh requests and queued at the back (untimed); the next 256
// waiting ones are admitted and prefilled (untimed) before timing resumes. The scheduler, its KV
// pool and its prefix cache persist across recycles, so allocation also pays for evicting cached
// blocks once the free queue's uncached blocks run out, as in a long-running engine.
//
// The KV capacity is llmsim's default for H200 + Llama-3.1-8B (make_replay_config), with
// max_num_seqs overridden to 256.

#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.h"
#include "core/scheduler.h"
#include "sim/cli/replay_command.h"

namespace {

using llm::Nanos;
using llm::Request;
using llm::Scheduler;
using llm::SchedulerConfig;
using llm::SchedulerOutput;

constexpr int kRecycleEvery = 1024;       // decode steps between resets of the running set
constexpr Nanos kStepNanos = 10'000'000;  // simulated time per step (only timestamps use it)

class DecodeState {
 public:
  DecodeState(int running, int waiting)
      : running_(running), waiting_(waiting), sched_(config(running)) {
    const int total = running + waiting;
    requests_.reserve(static_cast<size_t>(total));
    for (int i = 0; i < total; ++i) {
      requests_.push_back(std::make_unique<Request>());
      reset(*requests_.back(), i);
      sched_.add(requests_.back().get());
    }
  }

  static SchedulerConfig config(int max_num_seqs) {
    llm::ReplayOptions options;
    options.trace_path = "unused";
    options.engine.max_num_seqs = max_num_seqs;
    return llm::make_replay_config(options).scheduler;
  }

  Scheduler& scheduler() { return sched_; }

  // Runs untimed steps until `running_` requests run, each wanting exactly one decode token, and
  // `waiting_` wait. Returns false when that state is not reached.
  bool settle() {
    for (int step = 0; step < 10'000; ++step) {
      if (in_decode_state()) return true;
      sched_.schedule(now_, out_);
      apply();
    }
    return in_decode_state();
  }

  // Retires the running set into fresh requests at the back of the waiting queue.
  void recycle() {
    std::vector<Request*> running(sched_.running().begin(), sched_.running().end());
    for (Request* r : running) {
      sched_.remove(r);
      reset(*r, r->prompt_len);
      sched_.add(r);
    }
  }

  // The timed part.
  Nanos schedule_once(SchedulerOutput& out) {
    sched_.schedule(now_, out);
    return now_;
  }

  // Applies a step's outputs the way EngineCore::end_step does (minus the stop checks: nothing
  // finishes here) and advances simulated time.
  void apply(const SchedulerOutput& out) {
    for (const llm::ScheduledSeq& s : out.seqs) {
      if (!s.samples) continue;
      Request& r = *s.request;
      r.append_output_token(static_cast<int32_t>(1 + (r.num_output_tokens & 0x3ff)));
      if (r.timeline.first_token == llm::kNoTime) r.timeline.first_token = now_ + kStepNanos;
      r.timeline.last_token = now_ + kStepNanos;
    }
    now_ += kStepNanos;
  }

  bool in_decode_state() const {
    if (sched_.num_running() != static_cast<size_t>(running_) ||
        sched_.num_waiting() != static_cast<size_t>(waiting_)) {
      return false;
    }
    for (const Request* r : sched_.running()) {
      if (r->num_tokens() - r->num_computed_tokens != 1) return false;
    }
    return true;
  }

 private:
  void apply() { apply(out_); }

  // A fresh request with a prompt of 128..1151 tokens (deterministic spread) and unique content.
  void reset(Request& r, int64_t seed) {
    const uint64_t id = next_id_++;
    const uint64_t h = llm::mix64(id ^ static_cast<uint64_t>(seed));
    r = Request{};
    r.id = id;
    r.external_id = std::to_string(id);
    r.parent_id = r.external_id;
    r.prompt_len = 128 + static_cast<int64_t>(h % 1024);
    r.prompt_salt = llm::hash_combine(0x62656e6368ULL, id);
    r.timeline.arrival = now_;
    r.timeline.queued = now_;
  }

  int running_;
  int waiting_;
  Scheduler sched_;
  std::vector<std::unique_ptr<Request>> requests_;
  SchedulerOutput out_;
  Nanos now_ = 0;
  uint64_t next_id_ = 0;
};

void BM_ScheduleCall(benchmark::State& state) {
  const int running = static_cast<int>(state.range(0));
  const int waiting = static_cast<int>(state.range(1));
  DecodeState s(running, waiting);
  if (!s.settle()) {
    state.SkipWithError("could not reach the decode steady state (running/waiting counts)");
    return;
  }
  SchedulerOutput out;
  int steps_since_recycle = 0;
  int64_t recycles = 0;
  for (auto _ : state) {
    if (steps_since_recycle == kRecycleEvery) {  // untimed: manual time covers schedule() only
      s.recycle();
      if (!s.settle()) {
        state.SkipWithError("could not return to the decode steady state after a recycle");
        break;
      }
      steps_since_recycle = 0;
      ++recycles;
    }
    const auto t0 = std::chrono::steady_clock::now();
    s.schedule_once(out);
    const auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    benchmark::DoNotOptimize(out.total_tokens);

    const Scheduler& sched = s.scheduler();
    if (out.seqs.size() != static_cast<size_t>(running) || out.total_tokens != running ||
        !out.preempted.empty() || out.num_admitted != 0 ||
        sched.num_running() != static_cast<size_t>(running) ||
        sched.num_waiting() != static_cast<size_t>(waiting)) {
      state.SkipWithError(
          ("timed call left the steady state: seqs=" + std::to_string(out.seqs.size()) +
           " tokens=" + std::to_string(out.total_tokens) +
           " preempted=" + std::to_string(out.preempted.size()) + " running=" +
           std::to_string(sched.num_running()) + " waiting=" + std::to_string(sched.num_waiting()))
              .c_str());
      break;
    }
    s.apply(out);
    ++steps_since_recycle;
  }
  state.counters["running"] = static_cast<double>(s.scheduler().num_running());
  state.counters["waiting"] = static_cast<double>(s.scheduler().num_waiting());
  state.counters["gpu_blocks"] = static_cast<double>(s.scheduler().kv().pool().num_blocks());
  state.counters["kv_usage"] = s.scheduler().kv().usage();
  state.counters["recycles"] = static_cast<double>(recycles);
  state.SetItemsProcessed(state.iterations() * running);  // decode tokens scheduled
}

BENCHMARK(BM_ScheduleCall)
    ->ArgNames({"running", "waiting"})
    ->Args({256, 1000})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
