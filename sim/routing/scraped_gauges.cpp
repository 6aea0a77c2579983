#include "sim/routing/scraped_gauges.h"

namespace llm {

ScrapedGauges::ScrapedGauges(size_t num_engines, Nanos staleness)
    : staleness_(staleness), samples_(num_engines) {}

void ScrapedGauges::record(size_t engine, const GaugeSample& sample) {
  samples_[engine].push_back(sample);
}

GaugeSample ScrapedGauges::seen_at(size_t engine, Nanos now) {
  std::deque<GaugeSample>& s = samples_[engine];
  const Nanos visible = now - staleness_;
  while (s.size() >= 2 && s[1].time <= visible) s.pop_front();
  if (s.empty() || s.front().time > visible) return {};
  return s.front();
}

}  // namespace llm
