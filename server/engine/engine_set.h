// The data-parallel engines of one llmserve (--data-parallel-size; one by default), each an
// EngineService with its own backend, KV cache and Prometheus series (engine="i"). A new request
// goes to the engine with the fewest unfinished requests (ties in turn), as vLLM's data-parallel
// front end balances on queue lengths; all sequences of one prompt stay on one engine. The server
// is unhealthy as soon as any engine has failed.
// Thread-safety: add() only before serving; everything else is safe from any thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <vector>

#include "core/vllm_metrics.h"
#include "server/engine/engine_service.h"

namespace llm {

class EngineSet {
 public:
  // `metrics` may be null (--disable-log-stats). Both must outlive the set's use.
  void add(EngineService* engine, EngineMetrics* metrics);

  size_t size() const { return engines_.size(); }
  EngineService& at(size_t i) const { return *engines_[i]; }
  EngineService& pick();

  bool failed() const;
  size_t num_unfinished() const;
  void abort_all();
  void stop();
  // Each engine's pending metric updates, applied on its own thread (before a /metrics scrape).
  void flush_metrics();

 private:
  std::vector<EngineService*> engines_;
  std::vector<EngineMetrics*> metrics_;
  std::atomic<size_t> turn_{0};
};

}  // namespace llm
