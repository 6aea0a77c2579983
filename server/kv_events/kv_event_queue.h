// The bounded hand-off between an engine thread and its KV-event publisher thread: the engine
// pushes one batch per step and never waits (a full queue refuses the batch, which the caller
// counts as dropped); the publisher pops, waiting up to a timeout.
// Thread-safety: every method is safe from any thread (one mutex, held for a move).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <vector>

#include "core/kv_events.h"

namespace llm {

// One engine step's events and when they were taken (seconds since the Unix epoch).
struct KvEventBatch {
  double ts = 0;
  std::vector<KvEvent> events;
};

class KvEventQueue {
 public:
  explicit KvEventQueue(size_t capacity) : capacity_(capacity) {}

  // Appends the batch unless `capacity` batches are already queued; false (batch untouched) then.
  bool try_push(KvEventBatch& batch);
  // The oldest batch, waiting up to `timeout` for one; nullopt when none came.
  std::optional<KvEventBatch> pop(std::chrono::milliseconds timeout);
  size_t size() const;

 private:
  const size_t capacity_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<KvEventBatch> batches_;  // guarded by mutex_
};

}  // namespace llm
