#include "server/engine/step_log_backend.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include "backends/sim/step_record.h"
#include "core/request.h"
#include "core/scheduler.h"
#include "core/testing/scripted_backend.h"

namespace llm {
namespace {

// Sleeps for a set time in every execute(), failing the steps it is told to.
class SlowBackend final : public Backend {
 public:
  Nanos execute(const SchedulerOutput& batch, std::vector<int32_t>& sampled) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    if (fail_next) {
      fail_next = false;
      throw StepFailed("scripted");
    }
    return inner.execute(batch, sampled);
  }
  int32_t eos_token_id() const override { return 0; }
  bool fail_next = false;
  testing::ScriptedBackend inner{5000};
};

std::vector<StepRecord> read_log(const std::string& path) {
  std::ifstream in(path);
  std::vector<StepRecord> records;
  for (std::string line; std::getline(in, line);) records.push_back(parse_step_record(line));
  return records;
}

TEST(StepLogBackend, WritesOneTimedRecordPerStep) {
  const std::string path = ::testing::TempDir() + "/step_log_test.jsonl";
  SlowBackend slow;
  {
    StepLogFile file(path);
    StepLogBackend logged(slow, file, 3);
    Request a, b;
    SchedulerOutput batch;
    batch.seqs.push_back({&a, 0, 40, true});
    batch.seqs.push_back({&b, 200, 1, true});
    std::vector<int32_t> sampled;
    EXPECT_EQ(logged.execute(batch, sampled), 5000);  // the inner backend's time passes through
    EXPECT_EQ(sampled.size(), 2u);
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
    batch.seqs.pop_back();
    slow.fail_next = true;
    EXPECT_THROW(logged.execute(batch, sampled), StepFailed);
    logged.execute(batch, sampled);
  }
  const std::vector<StepRecord> records = read_log(path);
  ASSERT_EQ(records.size(), 2u);  // the failed step is not a timing sample
  EXPECT_EQ(records[0].engine, 3);
  EXPECT_EQ(records[0].step, 0);
  EXPECT_EQ(records[0].start_ns, 0);
  EXPECT_EQ(records[0].gap_ns, -1);
  EXPECT_GE(records[0].execute_ns, 3'000'000);
  EXPECT_EQ(records[0].modelled_ns, 5000);
  EXPECT_EQ(records[0].batch.num_sequences, 2);
  EXPECT_EQ(records[0].batch.new_tokens, 41);
  EXPECT_EQ(records[0].batch.context_tokens, 200);
  EXPECT_EQ(records[0].batch.sampling_sequences, 2);
  EXPECT_EQ(records[1].step, 2);  // the failed one counted as step 1
  EXPECT_EQ(records[1].batch.num_sequences, 1);
  // From the end of the failed step (3 ms after the 4 ms pause) to this one's start: small.
  EXPECT_GE(records[1].gap_ns, 0);
  EXPECT_LT(records[1].gap_ns, 3'000'000);
  EXPECT_GE(records[1].start_ns, records[0].execute_ns + 4'000'000 + 3'000'000);
}

TEST(StepLogBackend, UnwritablePathIsNamed) {
  try {
    StepLogFile file("/nonexistent-dir/steps.jsonl");
    FAIL() << "opened";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/steps.jsonl"), std::string::npos);
  }
}

}  // namespace
}  // namespace llm
