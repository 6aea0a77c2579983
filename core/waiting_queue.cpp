#include "core/waiting_queue.h"

#include <algorithm>
#include <tuple>

namespace llm {

// vLLM's Request.__lt__: priority, arrival, then the request-id string; the engine id (unique)
// makes the order total.
bool WaitingQueue::PriorityOrder::operator()(const Request* a, const Request* b) const {
  return std::tie(a->priority, a->timeline.arrival, a->external_id, a->id) <
         std::tie(b->priority, b->timeline.arrival, b->external_id, b->id);
}

Request* WaitingQueue::front() const {
  return policy_ == SchedulingPolicy::kFcfs ? fifo_.front() : *ordered_.begin();
}

void WaitingQueue::pop_front() {
  if (policy_ == SchedulingPolicy::kFcfs) {
    fifo_.pop_front();
  } else {
    ordered_.erase(ordered_.begin());
  }
}

void WaitingQueue::push_back(Request* r) {
  if (policy_ == SchedulingPolicy::kFcfs) {
    fifo_.push_back(r);
  } else {
    ordered_.insert(r);
  }
}

void WaitingQueue::push_preempted(Request* r) {
  if (policy_ == SchedulingPolicy::kFcfs) {
    fifo_.push_front(r);
  } else {
    ordered_.insert(r);
  }
}

bool WaitingQueue::remove(Request* r) {
  if (policy_ == SchedulingPolicy::kFcfs) {
    auto it = std::find(fifo_.begin(), fifo_.end(), r);
    if (it == fifo_.end()) return false;
    fifo_.erase(it);
    return true;
  }
  return ordered_.erase(r) > 0;
}

}  // namespace llm
