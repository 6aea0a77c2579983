// A thread that runs callbacks at their deadlines (steady clock), for the latency a test double
// adds to streams (FaultyJob): a callback should only post work elsewhere (to a session's strand)
// and return. Callbacks still waiting when the timer is destroyed are dropped unrun.
// Thread-safety: at() may be called from any thread; callbacks run on the timer's own thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace llm {

class DelayTimer {
 public:
  using Clock = std::chrono::steady_clock;
  DelayTimer();
  ~DelayTimer();
  DelayTimer(const DelayTimer&) = delete;
  DelayTimer& operator=(const DelayTimer&) = delete;

  void at(Clock::time_point deadline, std::function<void()> fn);

 private:
  void run();
  std::mutex mutex_;
  std::condition_variable changed_;
  std::multimap<Clock::time_point, std::function<void()>> due_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace llm
