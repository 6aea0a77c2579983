// Tests for the sweep's runner (sim/sweep/sweep_runner.h): summaries do not depend on the number of
// threads, a point already failed is skipped, and progress only grows and ends at the total.
#include "sim/sweep/sweep_runner.h"

#include <gtest/gtest.h>

#include <vector>

#include "sim/replay/summarize_replay.h"
#include "sim/trace/trace_io.h"

namespace llm {
namespace {

const std::string kRunnerTrace = "synthetic:n=150,rate=30,seed=9";

std::vector<ReplayOptions> options_with_seqs(const std::vector<int32_t>& seqs) {
  std::vector<ReplayOptions> options;
  for (int32_t n : seqs) {
    ReplayOptions o;
    o.trace_path = kRunnerTrace;
    o.engine.max_num_seqs = n;
    options.push_back(o);
  }
  return options;
}

std::vector<SweepPointResult> results_for(size_t n) {
  std::vector<SweepPointResult> results(n);
  for (size_t i = 0; i < n; ++i) results[i].dir_name = std::to_string(i);
  return results;
}

TEST(SweepRunner, SummariesDoNotDependOnThreads) {
  const Trace trace = read_trace_file(kRunnerTrace);
  const auto options = options_with_seqs({1, 2, 4, 8, 64});
  std::vector<std::string> by_jobs;
  for (int jobs : {1, 2, 5, 16}) {
    auto results = results_for(options.size());
    run_sweep_points(trace, options, results, jobs);
    std::string all;
    for (const SweepPointResult& r : results) {
      EXPECT_TRUE(r.ok) << r.error;
      all += format_summary_json(r.summary);
    }
    by_jobs.push_back(all);
  }
  for (size_t i = 1; i < by_jobs.size(); ++i) EXPECT_EQ(by_jobs[i], by_jobs[0]) << i;
  // And each equals a replay on its own.
  auto results = results_for(options.size());
  run_sweep_points(trace, options, results, 2);
  for (size_t i = 0; i < options.size(); ++i) {
    EXPECT_EQ(format_summary_json(results[i].summary),
              format_summary_json(summarize_replay(options[i], trace)));
  }
  EXPECT_NE(format_summary_json(results[0].summary), format_summary_json(results[4].summary));
}

TEST(SweepRunner, SkipsFailedPointsAndProgressGrowsToTheTotal) {
  const Trace trace = read_trace_file(kRunnerTrace);
  const auto options = options_with_seqs({1, 4, 16});
  auto results = results_for(options.size());
  results[1].error = "refused";
  std::vector<std::pair<int64_t, int64_t>> calls;
  run_sweep_points(trace, options, results, 2,
                   [&calls](int64_t done, int64_t total) { calls.emplace_back(done, total); });
  EXPECT_TRUE(results[0].ok);
  EXPECT_FALSE(results[1].ok);
  EXPECT_EQ(results[1].error, "refused");
  EXPECT_TRUE(results[2].ok);
  ASSERT_FALSE(calls.empty());
  for (size_t i = 0; i < calls.size(); ++i) {
    EXPECT_EQ(calls[i].second, 300);  // two points of 150 sequences
    if (i > 0) {
      EXPECT_GE(calls[i].first, calls[i - 1].first);
    }
  }
  EXPECT_EQ(calls.back().first, 300);
}

}  // namespace
}  // namespace llm
