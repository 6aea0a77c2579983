// Forwards every engine event to several observers in order (e.g. a report and the metrics).
// Thread-safety: as the observers it forwards to; engine thread only.
#pragma once

#include <vector>

#include "core/engine_observer.h"

namespace llm {

class ObserverTee final : public EngineObserver {
 public:
  ObserverTee() = default;
  explicit ObserverTee(std::vector<EngineObserver*> targets) : targets_(std::move(targets)) {}
  void add(EngineObserver* target) { targets_.push_back(target); }

  void on_queued(const Request& r) override {
    for (auto* t : targets_) t->on_queued(r);
  }
  void on_scheduled(const SchedulerOutput& b, const Scheduler& s) override {
    for (auto* t : targets_) t->on_scheduled(b, s);
  }
  void on_token(const Request& r, Nanos time, Nanos itl) override {
    for (auto* t : targets_) t->on_token(r, time, itl);
  }
  void on_tokens(std::span<const TokenEvent> tokens, Nanos time) override {
    for (auto* t : targets_) t->on_tokens(tokens, time);
  }
  void on_preempted(const Request& r) override {
    for (auto* t : targets_) t->on_preempted(r);
  }
  void on_preemptions_reported(const Request& r, int32_t count) override {
    for (auto* t : targets_) t->on_preemptions_reported(r, count);
  }
  void on_finished(const Request& r) override {
    for (auto* t : targets_) t->on_finished(r);
  }
  void on_step(const StepStats& s) override {
    for (auto* t : targets_) t->on_step(s);
  }
  void on_kv_block_residency(const KvResidencyObservations& o) override {
    for (auto* t : targets_) t->on_kv_block_residency(o);
  }
  void on_state(const StepStats& s) override {
    for (auto* t : targets_) t->on_state(s);
  }

 private:
  std::vector<EngineObserver*> targets_;
};

}  // namespace llm
