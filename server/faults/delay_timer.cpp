#include "server/faults/delay_timer.h"

#include <utility>

namespace llm {

DelayTimer::DelayTimer() : thread_([this] { run(); }) {}

DelayTimer::~DelayTimer() {
  std::multimap<Clock::time_point, std::function<void()>> dropped;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
    dropped.swap(due_);
  }
  changed_.notify_all();
  thread_.join();
}

void DelayTimer::at(Clock::time_point deadline, std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    due_.emplace(deadline, std::move(fn));
  }
  changed_.notify_all();
}

void DelayTimer::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    if (due_.empty()) {
      changed_.wait(lock);
      continue;
    }
    const auto next = due_.begin()->first;
    if (Clock::now() < next) {
      changed_.wait_until(lock, next);
      continue;
    }
    std::function<void()> fn = std::move(due_.begin()->second);
    due_.erase(due_.begin());
    lock.unlock();
    fn();
    fn = nullptr;  // its captures released outside the lock
    lock.lock();
  }
}

}  // namespace llm
