#include "sim/sweep/sweep_runner.h"

#include <atomic>
#include <exception>
#include <mutex>

#include "sim/replay/run_in_parallel.h"
#include "sim/replay/summarize_replay.h"

namespace llm {

void run_sweep_points(const Trace& trace, const std::vector<ReplayOptions>& options,
                      std::vector<SweepPointResult>& results, int jobs,
                      const ProgressFn& on_progress) {
  const int64_t per_point = sequences_of(trace);
  int64_t total = 0;
  for (const SweepPointResult& result : results) total += result.error.empty() ? per_point : 0;
  std::atomic<int64_t> done{0};
  std::mutex progress_mutex;
  // Reports without waiting: a worker that finds another one reporting skips its turn.
  auto report = [&](bool wait) {
    if (!on_progress) return;
    std::unique_lock<std::mutex> lock(progress_mutex, std::defer_lock);
    if (wait) {
      lock.lock();
    } else if (!lock.try_lock()) {
      return;
    }
    on_progress(done.load(), total);
  };
  run_in_parallel(results.size(), jobs, [&](size_t i) {
    SweepPointResult& result = results[i];
    if (!result.error.empty()) return;
    int64_t reported = 0;
    const ProgressFn step = [&](int64_t finished, int64_t) {
      done += finished - reported;
      reported = finished;
      report(false);
    };
    try {
      result.summary = summarize_replay(options[i], trace, on_progress ? step : ProgressFn{});
      result.ok = true;
    } catch (const std::exception& e) {
      result.error = e.what();
    } catch (...) {
      result.error = "the replay failed with an unknown exception";
    }
    done += per_point - reported;
    report(true);
  });
}

}  // namespace llm
