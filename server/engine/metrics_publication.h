// Lets /metrics read the engines' Prometheus series without waiting for a step or taking a lock
// that an engine thread takes. Each engine thread publishes its step's metric deltas into the
// registry after every step (publish(), around EngineMetrics::flush); a scrape collects the
// registry whenever it likes (collect()). A sequence number per engine, odd while that engine is
// publishing (a seqlock), tells a scrape that its collection overlapped a publication; it then
// collects again, so that it sees every engine as of the end of one of its publications (never a
// histogram observed and its counter not yet). A collection that finds a publication running
// waits (yielding) until it ends; a publication takes microseconds, so a scrape waits for at most
// one per engine and retries rarely. After kMaxAttempts overlapping collections, or
// kMaxWaitForPublication, it returns the last one (every series is itself consistent:
// prometheus-cpp's metric objects are thread-safe).
// Thread-safety: publish(i, ...) from engine i's thread only; collect() from any thread.
#pragma once

#include <prometheus/metric_family.h>
#include <prometheus/registry.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace llm {

class MetricsPublication {
 public:
  static constexpr int kMaxAttempts = 8;
  static constexpr std::chrono::milliseconds kMaxWaitForPublication{50};

  explicit MetricsPublication(size_t engines);

  // Engine `engine`'s thread: runs `flush` (which writes the registry) as one publication.
  void publish(size_t engine, const std::function<void()>& flush);
  // Any thread: the registry's families, consistent with whole publications (see above).
  std::vector<prometheus::MetricFamily> collect(const prometheus::Registry& registry) const;
  // Collections that overlapped a publication and were redone (for tests and benchmarks).
  uint64_t retries() const { return retries_.load(std::memory_order_relaxed); }

 private:
  // All sequence numbers, or an empty vector while one of them is odd (a publication runs).
  bool read_sequences(std::vector<uint64_t>& out) const;

  std::unique_ptr<std::atomic<uint64_t>[]> sequences_;  // one per engine; odd while publishing
  size_t size_;
  mutable std::atomic<uint64_t> retries_{0};
};

}  // namespace llm
