// vLLM v1's continuous-batching scheduler: each step spends a token budget first on running
// requests (admission order: a decode token each, or their next prefill chunk), then, if nothing
// was preempted, on waiting requests in queue order (chunked prefill, prefix-cache hits, a
// whole-sequence admission gate, head-of-line blocking). When a running request cannot get KV
// slots, the newest running request (FCFS) or the lowest-priority one (the earliest admitted
// among equals) is preempted by recompute.
// See docs/scheduler.md for the rules and their sources; core/scheduler_test.cpp pins them down
// step by step.
// Thread-safety: none; driven by the engine thread.
#pragma once

#include <climits>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/kv_cache_manager.h"
#include "core/request.h"
#include "core/scheduler_config.h"
#include "core/waiting_queue.h"

namespace llm {

inline constexpr Nanos kForever = INT64_MAX;

// One sequence's share of a step.
struct ScheduledSeq {
  Request* request = nullptr;
  int64_t num_computed_before = 0;  // tokens already in its KV cache (cache hits included)
  int64_t num_new_tokens = 0;       // tokens computed this step
  bool samples = false;             // the step reaches its last token, so it yields a new token
};

// What one schedule() call decided. Reused between steps to avoid allocation.
struct SchedulerOutput {
  Nanos schedule_time = kNoTime;
  std::vector<ScheduledSeq> seqs;
  std::vector<Request*> preempted;  // in the order they were preempted
  int64_t total_tokens = 0;
  int64_t num_admitted = 0;  // taken from waiting this step

  bool empty() const { return seqs.empty(); }
  void clear();
};

class Scheduler {
 public:
  Scheduler(const SchedulerConfig& config);

  const SchedulerConfig& config() const { return config_; }
  KvCacheManager& kv() { return kv_; }
  const KvCacheManager& kv() const { return kv_; }

  // Enters the waiting queue. True when it was parked (WaitingQueue::push_back): the caller
  // then destroys the Request.
  bool add(Request* request);
  // Waiting-queue parking (core/waiting_queue.h), for the engine that owns the requests.
  void enable_parking(size_t window, WaitingQueue::Adopt adopt) {
    waiting_.enable_parking(window, std::move(adopt));
  }
  void unpark_waiting() { waiting_.unpark_all(); }
  // Removes a request from whichever set holds it and releases its blocks. False when absent.
  bool remove(Request* request);

  // Decides the next step at time `now`; fills `out`. Updates num_computed_tokens as if the step
  // ran (the caller applies outputs before the next schedule()). Only waiting requests queued at
  // or before `admit_queued_until` are admitted (async scheduling: the decision was taken when the
  // previous step began, before later arrivals; the queue is not searched past the first later
  // one), and their scheduled time is that decision's, min(now, admit_queued_until). A finished
  // request that holds its seat is scheduled for one decode token, if the budget and a KV slot
  // allow without preempting anyone, and then leaves at drop_finished().
  void schedule(Nanos now, SchedulerOutput& out, Nanos admit_queued_until = kForever);

  // Takes finished requests out of the running set and releases their blocks.
  void drop_finished();

  const std::vector<Request*>& running() const { return running_; }
  const WaitingQueue& waiting() const { return waiting_; }
  // Seats taken (max_num_seqs counts these): seat holders of async scheduling included.
  size_t num_running() const { return running_.size(); }
  // Running and not finished: without the seat holders, whose requests have finished.
  size_t num_unfinished_running() const;
  size_t num_waiting() const { return waiting_.size(); }
  bool has_unfinished() const { return !running_.empty() || !waiting_.empty(); }
  int64_t num_preemptions() const { return num_preemptions_; }
  // vLLM's PauseState.PAUSED_NEW (a sleeping engine): running requests go on, waiting ones (new
  // or preempted) stay in the queue until the pause ends.
  void set_admission_paused(bool paused) { admission_paused_ = paused; }
  bool admission_paused() const { return admission_paused_; }

 private:
  void schedule_running(SchedulerOutput& out, int64_t& budget);
  void schedule_waiting(Nanos now, Nanos admit_queued_until, SchedulerOutput& out, int64_t& budget);
  void schedule_seat_holder(Request& request, SchedulerOutput& out, int64_t& budget);
  size_t pick_victim() const;  // index into running_
  void preempt(size_t index, SchedulerOutput& out, int64_t& budget);
  int64_t cap_at_threshold(int64_t wanted) const;  // long_prefill_token_threshold, when set

  SchedulerConfig config_;
  KvCacheManager kv_;
  std::vector<Request*> running_;  // admission order
  WaitingQueue waiting_;
  int64_t num_preemptions_ = 0;
  bool admission_paused_ = false;
  std::vector<int32_t> hit_blocks_;  // scratch
};

}  // namespace llm
