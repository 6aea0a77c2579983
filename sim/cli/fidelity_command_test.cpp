// The fidelity table's arithmetic: mean, spread, signed error and the verdict rules (an error
// inside the real runs' spread is not claimed as a pass), and the command's usage errors.
#include "sim/cli/fidelity_command.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "backends/sim/engine_profile.h"
#include "sim/cli/testing/profile_test_util.h"

namespace llm {
namespace {

TEST(FidelityRow, ErrorIsSignedAgainstTheMeanOfTheRealRuns) {
  FidelityRow r{"TTFT p50 (ms)", {100, 110}, 115.5, 0.10, {}};
  EXPECT_DOUBLE_EQ(r.real_mean(), 105);
  EXPECT_DOUBLE_EQ(r.spread(), 10.0 / 105);
  EXPECT_DOUBLE_EQ(r.error(), 0.1);
  EXPECT_EQ(r.verdict(), "pass");  // a 10% error is outside the 9.5% spread, at the 10% goal
}

TEST(FidelityRow, ThePredictionsSpreadIsOverItsReplays) {
  FidelityRow r{"TTFT p90 (ms)", {100, 110}, 0, 0.10, {90, 100, 110}};
  EXPECT_DOUBLE_EQ(r.predicted_spread(), 20.0 / 100);
  EXPECT_DOUBLE_EQ(mean_of_runs(r.predicted_runs), 100);
  EXPECT_DOUBLE_EQ(spread_of_runs({50}), 0);  // one replay: no spread
  EXPECT_DOUBLE_EQ(mean_of_runs({}), 0);
}

TEST(FidelityRow, VerdictsSeparateNoiseFromPassesAndMisses) {
  // Inside the spread: the runs themselves differ by more than the error.
  EXPECT_EQ((FidelityRow{"x", {100, 120}, 104, 0.10, {}}).verdict(), "inside spread");
  // Outside the spread and inside the goal.
  EXPECT_EQ((FidelityRow{"x", {100, 101}, 108, 0.10, {}}).verdict(), "pass");
  // Outside both.
  EXPECT_EQ((FidelityRow{"x", {100, 101}, 150, 0.10, {}}).verdict(), "MISS");
  EXPECT_EQ((FidelityRow{"x", {100, 101}, 50, 0.20, {}}).verdict(), "MISS");
  // One run has no spread.
  EXPECT_EQ((FidelityRow{"x", {100}, 105, 0.10, {}}).spread(), 0);
  EXPECT_EQ((FidelityRow{"x", {100}, 105, 0.10, {}}).verdict(), "pass");
}

TEST(FidelityRow, TheMedianErrorIsOverTheWholeTable) {
  const std::vector<FidelityRow> rows = {
      {"a", {100}, 101, 0.1, {}}, {"b", {100}, 90, 0.1, {}}, {"c", {100}, 130, 0.1, {}}};
  EXPECT_DOUBLE_EQ(median_abs_error(rows), 0.10);
  const std::string table = format_fidelity_table(rows);
  EXPECT_NE(table.find("median |error| over the table: 10.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("+30.0%"), std::string::npos) << table;
}

TEST(FidelityCommand, BadUsageExitsTwoNamingWhatIsMissing) {
  std::ostringstream out, err;
  EXPECT_EQ(run_fidelity_command({"trace.json", "--profile", "p.json"}, out, err), 2);
  EXPECT_NE(err.str().find("--url: required"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(run_fidelity_command({"trace.json", "--url", "http://127.0.0.1:1"}, out, err), 2);
  EXPECT_NE(err.str().find("--profile: required"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(run_fidelity_command({"--url", "http://127.0.0.1:1", "--profile", "/nonexistent.json"},
                                 out, err),
            2);
  EXPECT_NE(err.str().find("missing TRACE"), std::string::npos) << err.str();
  err.str("");
  EXPECT_EQ(run_fidelity_command(
                {"synthetic:n=2", "--url", "http://127.0.0.1:1", "--profile", "/nonexistent.json"},
                out, err),
            2);
  EXPECT_NE(err.str().find("--profile: /nonexistent.json: cannot open file"), std::string::npos)
      << err.str();
}

TEST(FidelityCommand, ReplaysAreCountedFromOne) {
  std::ostringstream out, err;
  EXPECT_EQ(run_fidelity_command({"synthetic:n=2", "--url", "http://127.0.0.1:1", "--profile",
                                  "p.json", "--sim-runs", "0"},
                                 out, err),
            2);
  EXPECT_NE(err.str().find("--sim-runs"), std::string::npos) << err.str();
}

TEST(FidelityCommand, EveryProfileOfAListIsCheckedBeforeAnyTraffic) {
  std::ostringstream out, err;
  EXPECT_EQ(run_fidelity_command(
                {"synthetic:n=2", "--url", "http://127.0.0.1:1", "--profile", "a.json,,b.json"},
                out, err),
            2);
  EXPECT_NE(err.str().find("--profile: an empty item in 'a.json,,b.json'"), std::string::npos)
      << err.str();
  err.str("");
  EXPECT_EQ(run_fidelity_command({"synthetic:n=2", "--url", "http://127.0.0.1:1", "--profile",
                                  "/nonexistent-first.json,/nonexistent-second.json"},
                                 out, err),
            2);
  EXPECT_NE(err.str().find("--profile: /nonexistent-first.json: cannot open file"),
            std::string::npos)
      << err.str();
}

TEST(FidelityCommand, AServerStepLogThatCannotBeReadIsNamedBeforeAnyTraffic) {
  const std::string profile = ::testing::TempDir() + "fidelity_command_profile.json";
  std::ofstream(profile) << engine_profile_json(testing::tiny_profile(256, 2048));
  std::ostringstream out, err;
  // The server at port 1 is down: an exit 2 naming the log means it was checked first.
  EXPECT_EQ(run_fidelity_command({"synthetic:n=2", "--url", "http://127.0.0.1:1", "--profile",
                                  profile, "--server-step-log", "/nonexistent/steps.jsonl"},
                                 out, err),
            2);
  EXPECT_NE(err.str().find("--server-step-log: /nonexistent/steps.jsonl: cannot read the step log"),
            std::string::npos)
      << err.str();
}

TEST(FidelityCommand, ABoundOnTheCostsAsRunNeedsTheServersStepLog) {
  std::ostringstream out, err;
  EXPECT_EQ(run_fidelity_command({"synthetic:n=2", "--url", "http://127.0.0.1:1", "--profile",
                                  "p.json", "--check-p50-as-run", "50"},
                                 out, err),
            2);
  EXPECT_NE(err.str().find("--check-p50-as-run: needs --server-step-log"), std::string::npos)
      << err.str();
  err.str("");
  EXPECT_EQ(run_fidelity_command({"synthetic:n=2", "--url", "http://127.0.0.1:1", "--profile",
                                  "p.json", "--check-p50-as-run", "-1"},
                                 out, err),
            2);
  EXPECT_NE(err.str().find("--check-p50-as-run"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace llm
