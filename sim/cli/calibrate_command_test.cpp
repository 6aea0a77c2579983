// `llmsim calibrate --step-log A,B`: each log's host gaps are taken within that log, so the gap
// before a log's first step (time since the server started, or since a run before the log)
// never lands on the other log's last step; a gap inside a log still counts. The profile keeps
// the steps' scatter around the model unless --no-step-noise, which scales the model instead.
#include "sim/cli/calibrate_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "backends/sim/engine_profile.h"
#include "backends/sim/step_record.h"
#include "sim/cli/testing/profile_test_util.h"

namespace llm {
namespace {

std::string write(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "calibrate_command_" + name;
  std::ofstream(path) << text;
  return path;
}

// The true step model both logs were priced with.
const FittedStepModel kTruth{2e6, 3e5, 5e5, 16, 40, 3, 4e5, 4};

// Steps of every shape the fit needs, each timed at the true model's price less its host gap,
// and recorded with that gap before the next step; record 0 carries `first_gap`.
std::string priced_log(Nanos first_gap, Nanos inner_gap) {
  std::vector<StepRecord> log;
  for (int64_t seqs : {1, 2, 3, 5, 8, 13, 16}) {
    for (int64_t context : {20, 200, 900}) {
      StepRecord r;
      for (int64_t i = 0; i < seqs; ++i) r.batch.add(context, 1, true);
      log.push_back(r);
    }
  }
  for (int64_t prompt : {8, 30, 120, 480, 1500}) {
    StepRecord r;
    r.batch.add(0, prompt, true);
    if (prompt > 100) r.batch.add(300, 1, true);
    log.push_back(r);
  }
  // Last: a one-sequence decode of a few ms, which a stray 3 ms would double.
  std::reverse(log.begin(), log.end());
  std::string text;
  for (size_t i = 0; i < log.size(); ++i) {
    StepRecord& r = log[i];
    r.step = static_cast<int64_t>(i);
    // Step i's host time is the gap recorded on step i + 1: the last step has none.
    const Nanos host = i + 1 < log.size() ? inner_gap : 0;
    r.execute_ns = fitted_step_time_ns(kTruth, r.batch) - host;
    r.gap_ns = i == 0 ? first_gap : inner_gap;
    text += step_record_json(r) + "\n";
  }
  return text;
}

std::string facts_file() {
  return write("facts.json", engine_profile_json(testing::tiny_profile(64, 2048)));
}

TEST(CalibrateCommand, EachStepLogKeepsItsOwnGaps) {
  // The second log starts 3 ms after something the first log never saw: under the 5 ms limit,
  // so fitted as host time if it were taken as the first log's last step's.
  const std::string a = write("a.jsonl", priced_log(-1, 200'000));
  const std::string b = write("b.jsonl", priced_log(3'000'000, 0));
  const std::string both = write("both.jsonl", priced_log(-1, 200'000) + priced_log(3'000'000, 0));
  const std::string facts = facts_file();
  struct Case {
    std::string logs;
    bool exact;  // the fit recovers the true model
  };
  for (const Case& c : {Case{a + "," + b, true}, Case{both, false}}) {
    const std::string out_path = write("out.json", "");
    std::ostringstream out, err;
    ASSERT_EQ(run_calibrate_command({"--step-log", c.logs, "--facts", facts, "--out", out_path},
                                    out, err),
              0)
        << err.str();
    const EngineProfile fitted = load_engine_profile(out_path);
    EXPECT_EQ(fitted.fit.steps, 52) << c.logs;
    if (c.exact) {
      EXPECT_LT(fitted.fit.max_abs_error, 1e-3) << err.str();
      EXPECT_NE(err.str().find("26 steps from " + a), std::string::npos) << err.str();
      EXPECT_NE(err.str().find("26 steps from " + b), std::string::npos) << err.str();
    } else {
      // One file: the first log's last step took the second log's 3 ms.
      EXPECT_GT(fitted.fit.max_abs_error, 0.1) << err.str();
    }
  }
}

TEST(CalibrateCommand, StepsOutWritesTheStepsTheFitSaw) {
  // A log whose steps each have 200 us of host time after them: --steps-out writes each step's
  // time with that gap in it and no gaps, so fitting the written log again gives the same model.
  const std::string log = write("gaps.jsonl", priced_log(-1, 200'000));
  const std::string facts = facts_file();
  const std::string first = write("first.json", ""), steps = write("steps.jsonl", "");
  std::ostringstream out, err;
  ASSERT_EQ(
      run_calibrate_command(
          {"--step-log", log, "--facts", facts, "--out", first, "--steps-out", steps}, out, err),
      0)
      << err.str();
  EXPECT_NE(out.str().find("wrote 26 steps to " + steps), std::string::npos) << out.str();
  const std::vector<StepRecord> written = read_step_log(steps);
  ASSERT_EQ(written.size(), 26u);
  for (const StepRecord& r : written) {
    EXPECT_EQ(r.gap_ns, -1);
    EXPECT_EQ(r.execute_ns, fitted_step_time_ns(kTruth, r.batch)) << step_record_json(r);
  }
  const std::string second = write("second.json", "");
  ASSERT_EQ(
      run_calibrate_command({"--step-log", steps, "--facts", facts, "--out", second}, out, err), 0)
      << err.str();
  EngineProfile again = load_engine_profile(second);
  const EngineProfile once = load_engine_profile(first);
  again.source = once.source;  // names the log it was fitted to
  EXPECT_EQ(engine_profile_json(again), engine_profile_json(once));
}

// The true model's steps, each one in five 1.6 times as slow: a server's skewed step times.
std::string skewed_log() {
  std::vector<StepRecord> steps = read_step_log(write("plain.jsonl", priced_log(-1, 0)));
  std::string text;
  int64_t i = 0;
  for (int repeat = 0; repeat < 5; ++repeat) {
    for (StepRecord r : steps) {
      r.step = i;
      if (i % 5 == 2) r.execute_ns = r.execute_ns * 8 / 5;
      r.gap_ns = -1;
      text += step_record_json(r) + "\n";
      ++i;
    }
  }
  return text;
}

TEST(CalibrateCommand, TheProfileKeepsTheScatterOrWithNoStepNoiseTheSum) {
  const std::string log = write("skewed.jsonl", skewed_log());
  const std::string facts = facts_file();
  double measured = 0;
  std::vector<StepRecord> steps = read_step_log(log);
  for (const StepRecord& r : steps) measured += static_cast<double>(r.execute_ns);
  auto priced_sum = [&steps](const EngineProfile& p) {
    double sum = 0;
    for (const StepRecord& r : steps)
      sum += static_cast<double>(fitted_step_time_ns(p.step, r.batch));
    return sum;
  };
  const std::string kept = write("kept.json", ""), scaled = write("scaled.json", "");
  std::ostringstream out, err;
  ASSERT_EQ(run_calibrate_command({"--step-log", log, "--facts", facts, "--out", kept}, out, err),
            0)
      << err.str();
  EXPECT_NE(out.str().find("kept as step_time_noise"), std::string::npos) << out.str();
  const EngineProfile with_noise = load_engine_profile(kept);
  ASSERT_TRUE(with_noise.step_noise.has_value());
  const StepTimeNoise& noise = *with_noise.step_noise;
  EXPECT_NEAR(step_noise_ratio(noise, 0.9) / step_noise_ratio(noise, 0.5), 1.6, 0.05);
  // Typical steps at their time; the scatter's mean makes up the slow ones.
  EXPECT_LT(priced_sum(with_noise) / measured, 0.95);
  EXPECT_NEAR(priced_sum(with_noise) * step_noise_mean(noise) / measured, 1.0, 1e-6);

  ASSERT_EQ(
      run_calibrate_command(
          {"--step-log", log, "--facts", facts, "--out", scaled, "--no-step-noise"}, out, err),
      0)
      << err.str();
  const EngineProfile without = load_engine_profile(scaled);
  EXPECT_FALSE(without.step_noise.has_value());
  EXPECT_NEAR(priced_sum(without) / measured, 1.0, 1e-6);
}

TEST(CalibrateCommand, StepsOutIsNotTheProfile) {
  std::ostringstream out, err;
  EXPECT_EQ(run_calibrate_command({"--step-log", "x.jsonl", "--facts", "f.json", "--out", "p.json",
                                   "--steps-out", "p.json"},
                                  out, err),
            2);
  EXPECT_NE(err.str().find("--steps-out: the same file as --out"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace llm
