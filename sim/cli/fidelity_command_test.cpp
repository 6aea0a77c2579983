// The fidelity command's usage errors (the table's arithmetic is fidelity_report_test.cpp's).
#include "sim/cli/fidelity_command.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "backends/sim/engine_profile.h"
#include "sim/cli/testing/profile_test_util.h"

namespace llm {
namespace {

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
