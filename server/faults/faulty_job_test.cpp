// FaultyJob around a fake stream (server/http/testing): the events pass one by one and in order,
// each held as the plan says; a cut passes exactly N events, then asks for the connection to be
// dropped and cancels the wrapped job.
#include "server/faults/faulty_job.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>

#include "server/http/testing/fake_http_handler.h"

namespace llm {
namespace {

// A session's strand stand-in: posted work queued from any thread, run by the test's thread.
class ManualStrand {
 public:
  HttpJob::Post post() {
    return [this](std::function<void()> fn) {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(fn));
      changed_.notify_all();
    };
  }
  // Runs posted work until `until` holds (or 5 s pass).
  template <typename Pred>
  bool run_until(Pred until) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!until()) {
      std::function<void()> fn;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        if (!changed_.wait_until(lock, deadline, [this] { return !queue_.empty(); })) return false;
        fn = std::move(queue_.front());
        queue_.pop_front();
      }
      fn();
    }
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::function<void()>> queue_;
};

constexpr const char* kFourEvents = "data: a\n\ndata: b\n\ndata: c\n\ndata: [DONE]\n\n";

TEST(FaultyJob, ReleasesEveryEventInOrderHeldByTheItl) {
  DelayTimer timer;
  ManualStrand strand;
  auto inner = std::make_shared<testing::FakeJob>(true, kFourEvents, true);
  LatencyPlan plan;
  plan.itl_ms = 15;
  auto job = std::make_shared<FaultyJob>(inner, plan, timer);
  std::string seen;
  std::vector<std::chrono::steady_clock::time_point> times;
  ASSERT_TRUE(job->start(strand.post(), [&] {
    const std::string out = job->take_output();
    if (!out.empty()) {
      seen += out;
      times.push_back(std::chrono::steady_clock::now());
    }
  }));
  ASSERT_TRUE(strand.run_until([&] { return job->done(); }));
  EXPECT_EQ(seen, kFourEvents);
  EXPECT_FALSE(job->drop_connection());
  // Event k is held k x 15 ms: the last (k = 3) at least 45 ms after the first (k = 0).
  ASSERT_GE(times.size(), 2u);
  EXPECT_GE(times.back() - times.front(), std::chrono::milliseconds(44));
}

TEST(FaultyJob, ACutPassesNEventsThenDropsTheConnection) {
  for (int64_t n : {0, 1, 3}) {
    DelayTimer timer;
    ManualStrand strand;
    auto inner = std::make_shared<testing::FakeJob>(true, kFourEvents, true);
    LatencyPlan plan;
    plan.cut_after = n;
    auto job = std::make_shared<FaultyJob>(inner, plan, timer);
    std::string seen;
    ASSERT_TRUE(job->start(strand.post(), [&] { seen += job->take_output(); }));
    ASSERT_TRUE(strand.run_until([&] { return job->drop_connection(); })) << n;
    EXPECT_FALSE(job->done());
    size_t events = 0;
    for (size_t p = 0; (p = seen.find("data: ", p)) != std::string::npos; ++p) ++events;
    EXPECT_EQ(events, static_cast<size_t>(n));
    job->cancel();  // what the session does
    EXPECT_TRUE(inner->cancelled());
  }
}

}  // namespace
}  // namespace llm
