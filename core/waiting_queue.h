// The scheduler's queue of waiting requests. FCFS: arrival order, with preempted requests put back
// at the front. Priority: ordered by (priority, arrival, request-id string) as vLLM orders them,
// preempted ones re-enter in order.
// Parking (FCFS only, enable_parking): past the first `window` requests, new ones are kept as
// compact records (core/parked_requests.h) and become Requests again, through the owner's
// `adopt`, as the front of the queue is taken: the scheduler only ever reads the queue from its
// front, so what it sees, and in what order, does not change. size() counts both.
// Thread-safety: none; owned by the Scheduler.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <set>

#include "core/parked_requests.h"
#include "core/request.h"
#include "core/scheduler_config.h"

namespace llm {

// The priority policy's total order, vLLM's Request.__lt__: (priority, arrival, request-id string),
// then the engine id. The waiting queue serves the smallest first.
bool priority_order_less(const Request& a, const Request& b);

class WaitingQueue {
 public:
  explicit WaitingQueue(SchedulingPolicy policy) : policy_(policy) {}

  // Takes ownership of a request made from a record and returns it (the engine's store).
  using Adopt = std::function<Request*(std::unique_ptr<Request>)>;

  // From now on (FCFS; ignored under priority) a new request that finds `window` (>= 1) or more
  // requests waiting is parked; adopt makes the records Requests again.
  void enable_parking(size_t window, Adopt adopt);

  bool empty() const { return size() == 0; }
  size_t size() const {
    return policy_ == SchedulingPolicy::kFcfs ? fifo_.size() + parked_.size() : ordered_.size();
  }
  size_t num_parked() const { return parked_.size(); }
  Request* front() const;
  void pop_front();
  // A new request. True when it was parked: the queue keeps a copy of it as a record, and the
  // caller destroys the Request (the id stays the same when it comes back).
  bool push_back(Request* request);
  void push_preempted(Request* request);  // a request that lost its KV blocks
  bool remove(Request* request);          // for aborts; false when absent
  // Makes every parked record a Request again (before an abort looks one up by id).
  void unpark_all();

  // fn(const Request*) for each waiting request in queue order; parked ones as a scratch copy,
  // valid during the call only.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    if (policy_ == SchedulingPolicy::kFcfs) {
      for (Request* r : fifo_) fn(static_cast<const Request*>(r));
      parked_.for_each([&fn](const Request& r) { fn(&r); });
    } else {
      for (Request* r : ordered_) fn(static_cast<const Request*>(r));
    }
  }

 private:
  struct PriorityOrder {
    bool operator()(const Request* a, const Request* b) const;
  };
  void refill();  // adopts parked records while fewer than window_ requests are in fifo_

  SchedulingPolicy policy_;
  std::deque<Request*> fifo_;
  ParkedRequests parked_;  // after fifo_, in arrival order
  size_t window_ = 0;      // 0: parking off
  Adopt adopt_;
  std::set<Request*, PriorityOrder> ordered_;
};

}  // namespace llm
