// The gauges of each engine as llm-d's endpoint picker knows them: it scrapes every engine's
// /metrics every scrape interval (50 ms by default) and routes on the values of its last scrape,
// not the live state. `staleness` delays them further (a slow scrape, or metrics published late):
// a route at time t sees the newest sample taken at or before t - staleness, and zeros before the
// first one. Samples are recorded in time order and queries come in time order.
// Thread-safety: none; simulator thread.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "core/clock.h"

namespace llm {

struct GaugeSample {
  Nanos time = 0;
  int64_t waiting = 0;  // vllm:num_requests_waiting
  double kv_usage = 0;  // vllm:kv_cache_usage_perc
};

class ScrapedGauges {
 public:
  ScrapedGauges(size_t num_engines, Nanos staleness);

  void record(size_t engine, const GaugeSample& sample);
  // What a route at `now` sees of `engine` (forgets the samples it can no longer see).
  GaugeSample seen_at(size_t engine, Nanos now);

 private:
  Nanos staleness_;
  std::vector<std::deque<GaugeSample>> samples_;
};

}  // namespace llm
