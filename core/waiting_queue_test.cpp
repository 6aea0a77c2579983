#include "core/waiting_queue.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace llm
