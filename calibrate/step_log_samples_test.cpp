// Step-log samples: the engine filter, which time a step costs (modelled for a simulated backend,
// measured for a real one), steps without time left out, and a log priced by a known model fitted
// back to it.
#include "calibrate/step_log_samples.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llm {
namespace {

StepRecord record(int64_t engine, Nanos execute, Nanos modelled, int64_t seqs, int64_t context) {
  StepRecord r;
  r.engine = engine;
  r.execute_ns = execute;
  r.modelled_ns = modelled;
  for (int64_t i = 0; i < seqs; ++i) r.batch.add(context, 1, true);
  return r;
}

TEST(StepLogSamples, TakesTheEnginesStepsAndTheirTime) {
  const std::vector<StepRecord> log = {
      record(0, 5'000, 0, 1, 10),       // real: measured
      record(1, 7'000, 0, 2, 10),       // another engine
      record(0, 40, 9'000'000, 3, 10),  // simulated: modelled
      record(0, 0, 0, 1, 10),           // no time
      record(0, 8'000, 0, 0, 0),        // an empty batch
  };
  struct Case {
    int64_t engine;
    std::vector<double> ns;
  };
  for (const Case& c : {Case{0, {5'000, 9'000'000}}, Case{1, {7'000}},
                        Case{-1, {5'000, 7'000, 9'000'000}}, Case{2, {}}}) {
    const std::vector<StepSample> got = step_log_samples(log, c.engine);
    ASSERT_EQ(got.size(), c.ns.size()) << "engine " << c.engine;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].ns, c.ns[i]) << "engine " << c.engine;
  }
  EXPECT_EQ(step_log_samples(log, 0)[1].cost.num_sequences, 3);
}

TEST(StepLogSamples, AStepTakesTheShortGapBeforeItsEnginesNextStep) {
  auto with_gap = [](StepRecord r, Nanos gap) {
    r.gap_ns = gap;
    return r;
  };
  const std::vector<StepRecord> log = {
      with_gap(record(0, 1'000, 0, 1, 10), -1),     // first step: no gap before it
      with_gap(record(1, 2'000, 0, 1, 10), -1),     // engine 1's first
      with_gap(record(0, 3'000, 0, 1, 10), 400),    // engine 0: 400 ns after step 1 -> step 1
      with_gap(record(1, 4'000, 0, 1, 10), 900),    // engine 1: 900 after its first
      with_gap(record(0, 5'000, 0, 1, 10), 7'000),  // an idle wait: over the limit
      with_gap(record(0, 0, 0, 1, 10), 100),        // no time: not a sample (100 -> step 5)
      with_gap(record(0, 6'000, 0, 1, 10), 300),    // this gap belongs to the untimed step
      with_gap(record(0, 8'000, 0, 1, 10), 50),     // -> the step before
  };
  struct Case {
    int64_t engine;
    Nanos limit;
    std::vector<double> ns;
  };
  for (const Case& c :
       {Case{0, 5'000, {1'400, 3'000, 5'100, 6'050, 8'000}}, Case{1, 5'000, {2'900, 4'000}},
        Case{-1, 5'000, {1'400, 2'900, 3'000, 4'000, 5'100, 6'050, 8'000}},
        Case{0, 0, {1'000, 3'000, 5'000, 6'000, 8'000}},
        Case{0, 8'000, {1'400, 10'000, 5'100, 6'050, 8'000}}}) {
    const std::vector<StepSample> got = step_log_samples(log, c.engine, c.limit);
    ASSERT_EQ(got.size(), c.ns.size()) << "engine " << c.engine << " limit " << c.limit;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].ns, c.ns[i]) << "engine " << c.engine << " limit " << c.limit << " #" << i;
    }
  }
}

TEST(StepLogSamples, ALogPricedByAModelFitsBackToIt) {
  const FittedStepModel truth{2e6, 3e5, 5e5, 16, 40, 3, 4e5, 4};
  std::vector<StepRecord> log;
  for (int64_t seqs : {1, 2, 3, 5, 8, 13, 16}) {
    for (int64_t context : {20, 200, 900}) {
      StepRecord r = record(0, 0, 0, seqs, context);
      r.execute_ns = fitted_step_time_ns(truth, r.batch);
      log.push_back(r);
    }
  }
  for (int64_t prompt : {8, 30, 120, 480, 1500}) {
    StepRecord r;
    r.batch.add(0, prompt, true);
    if (prompt > 100) r.batch.add(300, 1, true);  // mixed: a prefill with a decode
    r.execute_ns = fitted_step_time_ns(truth, r.batch);
    log.push_back(r);
  }
  const StepFit fit = fit_step_model(step_log_samples(log, -1));
  EXPECT_LT(fit.quality.max_abs_error, 1e-3);
  for (const StepRecord& r : log) {
    const double got = static_cast<double>(fitted_step_time_ns(fit.model, r.batch));
    EXPECT_NEAR(got, static_cast<double>(r.execute_ns), 1e-3 * static_cast<double>(r.execute_ns));
  }
}

}  // namespace
}  // namespace llm
