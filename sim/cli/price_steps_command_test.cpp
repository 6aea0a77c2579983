#include "sim/cli/price_steps_command.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "backends/sim/engine_profile.h"
#include "backends/sim/step_record.h"
#include "sim/cli/testing/profile_test_util.h"

namespace llm {
namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "price_steps_" + name;
  std::ofstream(path) << text;
  return path;
}

std::string profile_file() {
  EngineProfile p = testing::tiny_profile(64, 256);
  p.step.per_sequence_ns = 1e6;
  return write_file("profile.json", engine_profile_json(p));
}

std::string log_line(int64_t step, int seqs, Nanos execute_ns) {
  StepRecord r;
  r.step = step;
  r.execute_ns = execute_ns;
  r.gap_ns = step == 0 ? -1 : 250'000;
  for (int i = 0; i < seqs; ++i) r.batch.add(20, 1, true);
  return step_record_json(r) + "\n";
}

int run_price_steps(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::ostringstream o, e;
  const int code = run_price_steps_command(args, o, e);
  out = o.str();
  err = e.str();
  return code;
}

TEST(PriceStepsCommand, PrintsTheTablesOfALog) {
  const std::string log =
      write_file("good.jsonl",
                 log_line(0, 1, 4'000'000) + log_line(1, 1, 4'000'000) + log_line(2, 8, 9'000'000));
  std::string out, err;
  ASSERT_EQ(run_price_steps({log, "--profile", profile_file()}, out, err), 0) << err;
  // decode b=1: priced 2 ms against 4 ms measured, -50%; b=8: 9 ms against 9 ms.
  EXPECT_NE(out.find("decode b=1                 2       4.00       2.00     -50.0%"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("decode b=5-8               1       9.00       9.00      +0.0%"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("2 gaps, p50 0.250 ms"), std::string::npos) << out;
}

TEST(PriceStepsCommand, BadInputNamesTheFileLineAndField) {
  const std::string profile = profile_file();
  const std::string bad = write_file("bad.jsonl", log_line(0, 1, 1000) + "{\"engine\":0}\n");
  const std::string empty = write_file("empty.jsonl", "");
  const struct {
    std::vector<std::string> args;
    std::string message;
  } cases[] = {
      {{bad, "--profile", profile}, bad + ":2: missing field 'step'"},
      {{empty, "--profile", profile}, empty + ": no steps in the log"},
      {{"/nonexistent/steps.jsonl", "--profile", profile}, "cannot read the step log"},
      {{bad}, "--profile: required"},
      {{"--profile", profile}, "missing STEPLOG"},
      {{write_file("one.jsonl", log_line(0, 1, 1000)), "--profile", profile, "--engine", "3"},
       "--engine 3: no steps of that engine"},
      {{bad, "--profile", write_file("bad-profile.json", "{}")}, "--profile: "},
  };
  for (const auto& c : cases) {
    std::string out, err;
    EXPECT_EQ(run_price_steps(c.args, out, err), 2) << c.message;
    EXPECT_NE(err.find(c.message), std::string::npos) << err;
  }
}

}  // namespace
}  // namespace llm
