// Tests for the worker pool of parallel replays (sim/replay/run_in_parallel.h): every task runs
// once whatever the number of threads, and the failure reported is the smallest index's.
#include "sim/replay/run_in_parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

namespace llm {
namespace {

TEST(RunInParallel, RunsEveryTaskOnceAndRethrowsTheFirstFailure) {
  for (int jobs : {1, 2, 8}) {
    std::vector<std::atomic<int>> calls(37);
    run_in_parallel(calls.size(), jobs, [&](size_t i) { ++calls[i]; });
    for (auto& c : calls) EXPECT_EQ(c.load(), 1) << jobs;
    try {
      run_in_parallel(10, jobs, [](size_t i) {
        if (i == 3 || i == 7) throw std::runtime_error("task " + std::to_string(i));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "task 3");
    }
  }
}

}  // namespace
}  // namespace llm
