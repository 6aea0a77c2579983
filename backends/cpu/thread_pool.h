// ThreadPool: a small persistent pool that runs the tasks 0..n-1 of one parallel loop on the
// caller and its worker threads, each task exactly once, and returns when all are done. Workers
// spin briefly between loops (a decode step issues a few hundred small loops) and then sleep. The
// caller never waits for a worker that has not joined a loop (on a busy machine a descheduled
// worker must not stall every loop); it only waits for joined workers to finish their task.
// Which thread runs a task is not fixed, so tasks must write disjoint outputs and each task's
// result must not depend on the thread that runs it.
// Thread-safety: run() is called by one thread at a time (the owner); the pool is not reentrant.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

namespace llm {

class ThreadPool {
 public:
  // threads: total threads including the caller; <= 0 means std::thread::hardware_concurrency().
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs fn(task) for every task in [0, n). fn must not throw.
  template <typename Fn>
  void run(int64_t n, Fn& fn) {
    auto call = [](void* ctx, int64_t task) { (*static_cast<Fn*>(ctx))(task); };
    run_erased(n, call, const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  using TaskFn = void (*)(void*, int64_t);
  void run_erased(int64_t n, TaskFn fn, void* ctx);
  void worker_loop();
  void drain();  // takes tasks of the current loop until none is left

  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int64_t> next_{0};
  std::atomic<bool> open_{false};  // the current loop still accepts helpers
  std::atomic<int> active_{0};     // workers inside the current loop
  int64_t n_ = 0;
  TaskFn fn_ = nullptr;
  void* ctx_ = nullptr;
  bool stop_ = false;
};

}  // namespace llm
