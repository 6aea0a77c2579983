// The scheduler's queue of waiting requests. FCFS: arrival order, with preempted requests put back
// at the front. Priority: ordered by (priority, arrival, request-id string) as vLLM orders them,
// preempted ones re-enter in order.
// Thread-safety: none; owned by the Scheduler.
#pragma once

#include <cstddef>
#include <deque>
#include <set>

#include "core/request.h"
#include "core/scheduler_config.h"

namespace llm {

class WaitingQueue {
 public:
  explicit WaitingQueue(SchedulingPolicy policy) : policy_(policy) {}

  bool empty() const { return size() == 0; }
  size_t size() const {
    return policy_ == SchedulingPolicy::kFcfs ? fifo_.size() : ordered_.size();
  }
  Request* front() const;
  void pop_front();
  void push_back(Request* request);       // a new request
  void push_preempted(Request* request);  // a request that lost its KV blocks
  bool remove(Request* request);          // for aborts; false when absent

  template <typename Fn>
  void for_each(Fn&& fn) const {
    if (policy_ == SchedulingPolicy::kFcfs) {
      for (Request* r : fifo_) fn(r);
    } else {
      for (Request* r : ordered_) fn(r);
    }
  }

 private:
  struct PriorityOrder {
    bool operator()(const Request* a, const Request* b) const;
  };
  SchedulingPolicy policy_;
  std::deque<Request*> fifo_;
  std::set<Request*, PriorityOrder> ordered_;
};

}  // namespace llm
