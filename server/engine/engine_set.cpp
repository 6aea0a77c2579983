#include "server/engine/engine_set.h"

namespace llm {

void EngineSet::add(EngineService* engine, EngineMetrics* metrics) {
  engines_.push_back(engine);
  metrics_.push_back(metrics);
}

EngineService& EngineSet::pick() {
  const size_t n = engines_.size();
  if (n == 1) return *engines_[0];
  const size_t start = turn_.fetch_add(1, std::memory_order_relaxed) % n;
  size_t best = start;
  size_t best_load = engines_[start]->num_unfinished();
  for (size_t k = 1; k < n; ++k) {
    const size_t i = (start + k) % n;
    const size_t load = engines_[i]->num_unfinished();
    if (load < best_load) {
      best = i;
      best_load = load;
    }
  }
  return *engines_[best];
}

bool EngineSet::failed() const {
  for (const EngineService* e : engines_) {
    if (e->failed()) return true;
  }
  return false;
}

size_t EngineSet::num_unfinished() const {
  size_t total = 0;
  for (const EngineService* e : engines_) total += e->num_unfinished();
  return total;
}

void EngineSet::abort_all() {
  for (EngineService* e : engines_) e->abort_all();
}

void EngineSet::stop() {
  for (EngineService* e : engines_) e->stop();
}

void EngineSet::flush_metrics() {
  for (size_t i = 0; i < engines_.size(); ++i) {
    if (EngineMetrics* m = metrics_[i]) engines_[i]->run_on_engine_thread([m] { m->flush(); });
  }
}

}  // namespace llm
