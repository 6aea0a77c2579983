#include "server/kv_events/kv_event_queue.h"

namespace llm {

bool KvEventQueue::try_push(KvEventBatch& batch) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (batches_.size() >= capacity_) return false;
    batches_.push_back(std::move(batch));
  }
  ready_.notify_one();
  return true;
}

std::optional<KvEventBatch> KvEventQueue::pop(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!ready_.wait_for(lock, timeout, [this] { return !batches_.empty(); })) return std::nullopt;
  KvEventBatch batch = std::move(batches_.front());
  batches_.pop_front();
  return batch;
}

size_t KvEventQueue::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return batches_.size();
}

}  // namespace llm
