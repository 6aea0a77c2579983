#include "core/waiting_queue.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace llm {
namespace {

std::vector<Request> requests(const std::string& names) {
  std::vector<Request> rs(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    rs[i].id = i;
    rs[i].external_id = std::string(1, names[i]);
    rs[i].timeline.arrival = static_cast<Nanos>(i);
  }
  return rs;
}

std::string order(const WaitingQueue& q) {
  std::string s;
  q.for_each([&s](const Request* r) { s += r->external_id; });
  return s;
}

TEST(WaitingQueue, FcfsServesArrivalOrderAndPutsAPreemptedRequestAtTheFront) {
  std::vector<Request> rs = requests("ABC");
  WaitingQueue q(SchedulingPolicy::kFcfs);
  for (Request& r : rs) q.push_back(&r);
  EXPECT_EQ(q.front(), &rs[0]);
  q.pop_front();  // A is admitted...
  q.pop_front();  // ...and B
  EXPECT_EQ(order(q), "C");
  q.push_preempted(&rs[1]);  // B is preempted: ahead of C, which waited longer
  EXPECT_EQ(order(q), "BC");
  q.push_preempted(&rs[0]);  // the latest preempted goes first
  EXPECT_EQ(order(q), "ABC");
  EXPECT_EQ(q.front(), &rs[0]);
}

TEST(WaitingQueue, PriorityServesTheSmallestPriorityThenArrivalAndAPreemptedOneReentersInOrder) {
  std::vector<Request> rs = requests("ABCD");
  rs[0].priority = 1;
  rs[1].priority = 0;
  rs[2].priority = 1;
  rs[3].priority = 0;
  WaitingQueue q(SchedulingPolicy::kPriority);
  for (Request& r : rs) q.push_back(&r);
  EXPECT_EQ(order(q), "BDAC");
  q.pop_front();
  q.pop_front();
  q.pop_front();  // B, D and A admitted
  q.push_preempted(&rs[3]);
  EXPECT_EQ(order(q), "DC");
  q.push_preempted(&rs[0]);  // arrived before C, same priority
  EXPECT_EQ(order(q), "DAC");
}

// vLLM's Request.__lt__ orders on (priority, arrival, request-id string): each row queues requests
// in engine order (their engine ids grow) and lists the queue from its head.
TEST(WaitingQueue, PriorityBreaksTiesOnTheRequestIdStringAfterPriorityAndArrival) {
  struct Entry {
    const char* id;
    int32_t priority;
    Nanos arrival;
  };
  struct Row {
    SchedulingPolicy policy;
    std::vector<Entry> entries;
    std::string order;
  };
  const std::vector<Row> rows = {
      {SchedulingPolicy::kPriority,
       {{"b", 0, 0}, {"a", 0, 0}, {"9", 0, 0}, {"1_x", 0, 0}, {"10", 0, 0}, {"0_x", 0, 0}},
       "0_x 10 1_x 9 a b"},  // byte order, as Python compares str: "10" < "1_x" < "9"
      {SchedulingPolicy::kPriority, {{"b", 0, 0}, {"a", 0, 1}, {"c", -1, 2}}, "c b a"},
      {SchedulingPolicy::kFcfs, {{"b", 0, 0}, {"a", 0, 0}, {"c", -1, 0}}, "b a c"},
  };
  for (const Row& row : rows) {
    std::vector<Request> rs(row.entries.size());
    WaitingQueue q(row.policy);
    for (size_t i = 0; i < rs.size(); ++i) {
      rs[i].id = i;
      rs[i].external_id = row.entries[i].id;
      rs[i].priority = row.entries[i].priority;
      rs[i].timeline.arrival = row.entries[i].arrival;
      q.push_back(&rs[i]);
    }
    std::string got;
    q.for_each([&got](const Request* r) { got += (got.empty() ? "" : " ") + r->external_id; });
    EXPECT_EQ(got, row.order);
  }
}

TEST(WaitingQueue, RemoveTakesARequestFromAnywhereAndReportsAnAbsentOne) {
  for (SchedulingPolicy policy : {SchedulingPolicy::kFcfs, SchedulingPolicy::kPriority}) {
    std::vector<Request> rs = requests("ABC");
    WaitingQueue q(policy);
    for (Request& r : rs) q.push_back(&r);
    EXPECT_TRUE(q.remove(&rs[1]));
    EXPECT_FALSE(q.remove(&rs[1]));
    EXPECT_EQ(order(q), "AC");
    EXPECT_EQ(q.size(), 2u);
  }
}

// A parking queue and its owner's store of requests, as EngineCore keeps them.
struct ParkingOwner {
  std::map<uint64_t, std::unique_ptr<Request>> store;
  WaitingQueue queue{SchedulingPolicy::kFcfs};
  explicit ParkingOwner(size_t window) {
    queue.enable_parking(window, [this](std::unique_ptr<Request> r) {
      Request* p = r.get();
      store[p->id] = std::move(r);
      return p;
    });
  }
  void add(uint64_t id) {
    auto r = std::make_unique<Request>();
    r->id = id;
    r->external_id = "r" + std::to_string(id);
    r->timeline.arrival = static_cast<Nanos>(id);
    Request* p = r.get();
    store[id] = std::move(r);
    if (queue.push_back(p)) store.erase(id);  // parked: the record is the request now
  }
};

TEST(WaitingQueue, ParkingKeepsTheRequestsBeyondTheWindowAsRecordsUntilTheyReachIt) {
  ParkingOwner owner(2);
  for (uint64_t id = 0; id < 5; ++id) owner.add(id);
  EXPECT_EQ(owner.queue.size(), 5u);
  EXPECT_EQ(owner.queue.num_parked(), 3u);
  EXPECT_EQ(owner.store.size(), 2u);
  EXPECT_EQ(order(owner.queue), "r0r1r2r3r4");
  owner.queue.pop_front();  // r0 admitted: r2 comes back, so that two are Requests again
  EXPECT_EQ(owner.queue.num_parked(), 2u);
  EXPECT_EQ(owner.queue.front()->external_id, "r1");
  EXPECT_EQ(owner.store.count(2), 1u);
  owner.queue.unpark_all();
  EXPECT_EQ(owner.queue.num_parked(), 0u);
  EXPECT_EQ(order(owner.queue), "r1r2r3r4");
}

TEST(WaitingQueue, ParkingIsOffUnderThePriorityPolicy) {
  WaitingQueue q(SchedulingPolicy::kPriority);
  q.enable_parking(1, [](std::unique_ptr<Request> r) { return r.release(); });
  std::vector<Request> rs = requests("ABC");
  for (Request& r : rs) EXPECT_FALSE(q.push_back(&r));
  EXPECT_EQ(q.num_parked(), 0u);
}

// Whatever the window and the operations, a parking queue shows the scheduler what a plain one
// does: the same front, order and size.
RC_GTEST_PROP(WaitingQueue, AParkingQueueServesWhatAPlainOneServes, ()) {
  ParkingOwner parking(*rc::gen::inRange<size_t>(1, 6));
  std::vector<std::unique_ptr<Request>> plain_store;
  WaitingQueue plain(SchedulingPolicy::kFcfs);
  std::vector<uint64_t> popped;  // admitted, so that a preemption can put one back
  uint64_t next = 0;
  const int ops = *rc::gen::inRange(1, 200);
  for (int i = 0; i < ops; ++i) {
    const int op = *rc::gen::inRange(0, 10);
    if (op < 5) {
      parking.add(next);
      plain_store.push_back(std::make_unique<Request>());
      plain_store.back()->id = next;
      plain_store.back()->external_id = "r" + std::to_string(next);
      plain.push_back(plain_store.back().get());
      ++next;
    } else if (op < 8 && !plain.empty()) {
      RC_ASSERT(parking.queue.front()->id == plain.front()->id);
      popped.push_back(plain.front()->id);
      parking.queue.pop_front();
      plain.pop_front();
    } else if (op == 8 && !popped.empty()) {
      const uint64_t id = popped.back();
      popped.pop_back();
      parking.queue.push_preempted(parking.store.at(id).get());
      plain.push_preempted(plain_store[id].get());
    } else if (op == 9 && !plain.empty()) {
      parking.queue.unpark_all();
      const uint64_t id = plain.front()->id;
      RC_ASSERT(parking.queue.remove(parking.store.at(id).get()));
      RC_ASSERT(plain.remove(plain_store[id].get()));
    }
    RC_ASSERT(parking.queue.size() == plain.size());
    RC_ASSERT(order(parking.queue) == order(plain));
  }
}

}  // namespace
}  // namespace llm
