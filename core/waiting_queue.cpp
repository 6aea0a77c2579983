#include "core/waiting_queue.h"

#include <algorithm>
#include <tuple>

namespace llm {

// vLLM's Request.__lt__: priority, arrival, then the request-id string; the engine id (unique)
// makes the order total.
bool priority_order_less(const Request& a, const Request& b) {
  return std::tie(a.priority, a.timeline.arrival, a.external_id, a.id) <
         std::tie(b.priority, b.timeline.arrival, b.external_id, b.id);
}

bool WaitingQueue::PriorityOrder::operator()(const Request* a, const Request* b) const {
  return priority_order_less(*a, *b);
}

Request* WaitingQueue::front() const {
  return policy_ == SchedulingPolicy::kFcfs ? fifo_.front() : *ordered_.begin();
}

void WaitingQueue::enable_parking(size_t window, Adopt adopt) {
  if (policy_ != SchedulingPolicy::kFcfs) return;
  window_ = window < 1 ? 1 : window;
  adopt_ = std::move(adopt);
}

void WaitingQueue::refill() {
  while (fifo_.size() < window_ && !parked_.empty()) fifo_.push_back(adopt_(parked_.pop()));
}

void WaitingQueue::unpark_all() {
  while (!parked_.empty()) fifo_.push_back(adopt_(parked_.pop()));
}

void WaitingQueue::pop_front() {
  if (policy_ == SchedulingPolicy::kFcfs) {
    fifo_.pop_front();
    refill();
  } else {
    ordered_.erase(ordered_.begin());
  }
}

bool WaitingQueue::push_back(Request* r) {
  if (policy_ != SchedulingPolicy::kFcfs) {
    ordered_.insert(r);
    return false;
  }
  if (window_ > 0 && fifo_.size() >= window_ && ParkedRequests::parkable(*r)) {
    parked_.push(*r);
    return true;
  }
  if (!parked_.empty()) {
    // Arrival order: an unparkable request may not overtake the parked ones.
    unpark_all();
  }
  fifo_.push_back(r);
  return false;
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
    refill();
    return true;
  }
  return ordered_.erase(r) > 0;
}

}  // namespace llm
