#include "server/engine/metrics_publication.h"

#include <chrono>
#include <thread>

namespace llm {

MetricsPublication::MetricsPublication(size_t engines)
    : sequences_(std::make_unique<std::atomic<uint64_t>[]>(engines)), size_(engines) {
  for (size_t i = 0; i < size_; ++i) sequences_[i].store(0);
}

void MetricsPublication::publish(size_t engine, const std::function<void()>& flush) {
  std::atomic<uint64_t>& sequence = sequences_[engine];
  sequence.fetch_add(1, std::memory_order_acq_rel);  // odd: publishing
  flush();
  sequence.fetch_add(1, std::memory_order_release);  // even: done
}

bool MetricsPublication::read_sequences(std::vector<uint64_t>& out) const {
  out.resize(size_);
  for (size_t i = 0; i < size_; ++i) {
    out[i] = sequences_[i].load(std::memory_order_acquire);
    if (out[i] % 2 != 0) return false;
  }
  return true;
}

std::vector<prometheus::MetricFamily> MetricsPublication::collect(
    const prometheus::Registry& registry) const {
  using Clock = std::chrono::steady_clock;
  // A publication takes microseconds; one that seems to take longer (an engine thread descheduled
  // mid-way) is not waited for past this.
  const auto give_up = Clock::now() + kMaxWaitForPublication;
  std::vector<uint64_t> before, after;
  for (int attempt = 1;; ++attempt) {
    while (!read_sequences(before) && Clock::now() < give_up) std::this_thread::yield();
    std::vector<prometheus::MetricFamily> families = registry.Collect();
    std::atomic_thread_fence(std::memory_order_acquire);
    if ((read_sequences(after) && after == before) || attempt == kMaxAttempts ||
        Clock::now() >= give_up) {
      return families;
    }
    retries_.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace llm
