// The public side of the invariant checks: ReplayChecker puts together the run's shared state
// (checked_run.h), one checker per engine (engine_checker.h) and the metrics tap (metrics_tap.h).
#include "sim/dst/invariants.h"

#include <memory>
#include <string>
#include <vector>

#include "sim/dst/checked_run.h"
#include "sim/dst/engine_checker.h"
#include "sim/dst/metrics_tap.h"

namespace llm {

InvariantViolation::InvariantViolation(std::string invariant, std::string detail)
    : std::logic_error(invariant + ": " + detail),
      invariant_(std::move(invariant)),
      detail_(std::move(detail)) {}

ReplayChecker::ReplayChecker(const Trace& trace, const ReplayConfig& config, bool with_metrics)
    : run_(std::make_unique<CheckedRun>(trace, config)) {
  std::vector<EngineChecker*> checkers;
  for (size_t i = 0; i < run_->num_engines; ++i) {
    engines_.push_back(std::make_unique<EngineChecker>(*run_, i));
    checkers.push_back(engines_.back().get());
  }
  if (with_metrics) {
    metrics_ = std::make_unique<MetricsTap>(config, checkers);
    for (auto& tee : metrics_->tees) observers_.push_back(tee.get());
  } else {
    observers_.assign(checkers.begin(), checkers.end());
  }
}

ReplayChecker::~ReplayChecker() = default;

ReplayHooks ReplayChecker::hooks() {
  ReplayHooks hooks;
  hooks.on_step = [this](size_t i, const EngineCore& engine) { engines_[i]->after_step(engine); };
  hooks.on_route = [this](size_t request, size_t engine) { run_->on_route(request, engine); };
  return hooks;
}

void ReplayChecker::check_end(const ReplayTotals& totals) {
  run_->check_end(totals);
  for (size_t i = 0; i < engines_.size(); ++i) engines_[i]->check_end(totals.engines[i]);
  if (metrics_) {
    metrics_->check_end(run_->seqs.size(), run_->config.scheduler.enable_prefix_caching);
  }
}

std::string ReplayChecker::requests_jsonl() const { return metrics_ ? metrics_->jsonl.str() : ""; }

ReplayTotals run_checked_replay(const Trace& trace, const ReplayConfig& config, bool with_metrics,
                                std::string* requests_jsonl) {
  ReplayChecker checker(trace, config, with_metrics);
  const ReplayTotals totals = run_replay(trace, config, checker.observers(), checker.hooks());
  checker.check_end(totals);
  if (requests_jsonl) *requests_jsonl = checker.requests_jsonl();
  return totals;
}

}  // namespace llm
