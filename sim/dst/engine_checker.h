// One engine's observer in a checked replay (sim/dst/invariants.h): the checks at each engine
// event (engine_checker.cpp), after each step (kv_invariants.cpp), of each step's batch
// (admission_invariants.cpp), of each finish (finish_invariants.cpp), and at the end. Internal to
// the checkers of sim/dst/.
// Thread-safety: none; one replay on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "core/engine_core.h"
#include "core/engine_observer.h"
#include "core/request.h"
#include "core/scheduler.h"
#include "sim/dst/checked_run.h"
#include "sim/replay/replay.h"

namespace llm {

// One engine's observer: the event-level checks, the after-step checks and its end checks.
class EngineChecker final : public EngineObserver {
 public:
  EngineChecker(CheckedRun& run, size_t engine) : run_(run), engine_(engine) {}

  void on_queued(const Request& r) override;
  void on_scheduled(const SchedulerOutput& batch, const Scheduler& s) override;
  void on_token(const Request& r, Nanos time, Nanos itl) override;
  void on_preempted(const Request& r) override;
  void on_finished(const Request& r) override;
  void on_step(const StepStats& stats) override;
  void on_state(const StepStats& state) override;

  void after_step(const EngineCore& engine);  // ReplayHooks::on_step
  void check_end(const EngineTotals& totals) const;

 private:
  SeqRecord& seq(const Request& r);
  void at_event(Nanos t, const char* what);
  void check_budget(const SchedulerOutput& b, const Scheduler& s) const;
  void check_admission(const SchedulerOutput& b, const Scheduler& s);
  void check_admission_order(const SchedulerOutput& b, const Scheduler& s);
  void check_cached(const Request& r) const;
  void check_reason(const Request& r, const SeqRecord& rec);
  void check_timing(const Request& r, const SeqRecord& rec) const;
  void check_request_metrics(const Request& r) const;
  void check_step_failure(bool failed);
  void check_sets(const Scheduler& s) const;
  void check_kv(const Scheduler& s);
  void count_holders(const Scheduler& s);
  void check_counters(const Scheduler& s) const;
  void check_idle_blocks(const StepStats& state) const;

  CheckedRun& run_;
  size_t engine_;
  std::unordered_map<uint64_t, size_t> by_id_;  // engine id -> sequence, while unfinished
  bool in_step_ = false;
  Nanos step_start_ = kNoTime;
  Nanos admit_until_ = INT64_MAX;  // async scheduling: the latest queueing this step could see
  Nanos last_end_ = kNoTime;       // of the latest step
  Nanos last_event_ = kNoTime;     // the latest event's time
  Nanos last_queued_ = kNoTime;    // the latest queueing
  int64_t live_ = 0;               // queued and not finished
  size_t batch_size_ = 0;
  int64_t step_tokens_ = 0;
  int64_t step_errors_ = 0;  // queued sequences finished with `error` at the latest step's end
  int64_t preemptions_ = 0;
  int64_t steps_ = 0;
  int64_t admitted_prompts_ = 0;  // prompt tokens of finished sequences that were admitted
  int64_t admitted_hits_ = 0;     // their prefix-cache hits
  StepStats last_state_;
  bool have_state_ = false;
  std::vector<int32_t> refs_;  // scratch of check_kv
  std::vector<int32_t> hits_;  // scratch of check_admission
  std::vector<const Request*> batch_;
};

}  // namespace llm
