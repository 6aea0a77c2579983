// Sleep mode's state (vLLM's --enable-sleep-mode with VLLM_SERVER_DEV_MODE=1): whether the
// served model sleeps, at which level, and which of its parts (vLLM's tags "weights" and
// "kv_cache") still sleep after a partial wake_up. The server sleeps until every tag is awake, as
// vLLM's is_sleeping. Published as vLLM's gauge vllm:engine_sleep_state{model_name, engine,
// sleep_state} (vllm/v1/metrics/loggers.py; the family is core/vllm_metric_families.h's): per
// engine, sleep_state="awake" is 1 while awake and 0 while sleeping, "weights_offloaded" is 1 while
// sleeping at level 1, "discard_all" 1 while sleeping at level 2; the other series 0.
// Thread-safety: every method may be called from any thread (one mutex).
#pragma once

#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace llm {

class SleepState {
 public:
  // vLLM's sleep levels: 1 offloads the weights and discards the KV cache, 2 discards both.
  static constexpr int kMinLevel = 1;
  static constexpr int kMaxLevel = 2;

  // `families[i]`: engine i's vllm:engine_sleep_state family (null: no gauge, as with
  // --disable-log-stats), whose series this state sets.
  SleepState(const std::vector<prometheus::Family<prometheus::Gauge>*>& families,
             const std::string& model_name);

  bool sleeping() const;
  int level() const;  // 0 while awake
  // Sleeps at `level` (kMinLevel..kMaxLevel): every tag sleeps. Again while asleep: the new level.
  void sleep(int level);
  // Wakes the tags named (all when empty); unknown tags are ignored, as vLLM's allocator does.
  // The server is awake once no tag sleeps.
  void wake_up(const std::vector<std::string>& tags);

 private:
  void publish();  // under mutex_

  mutable std::mutex mutex_;
  int level_ = 0;
  std::set<std::string> sleeping_tags_;
  struct EngineGauges {
    prometheus::Gauge* awake;
    prometheus::Gauge* weights_offloaded;
    prometheus::Gauge* discard_all;
  };
  std::vector<EngineGauges> gauges_;
};

}  // namespace llm
