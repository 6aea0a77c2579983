// `llmsim replay --slo ... [--fail-on-slo]`: the SLO lines after the summary, the exit code when
// a target is missed, and bad --slo values named with the flag.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/cli/replay_command.h"

namespace llm {
namespace {

const std::string kSloTrace = std::string(LLM_SOURCE_DIR) + "/traces/tiny.json";

int run_replay(const std::vector<std::string>& args, std::string* out, std::string* err) {
  std::ostringstream o, e;
  const int code = run_replay_command(args, o, e);
  *out = o.str();
  *err = e.str();
  return code;
}

TEST(ReplaySlo, PrintsEachTargetAfterTheSummaryAndKeepsTheTable) {
  std::string plain, out, err;
  ASSERT_EQ(run_replay({kSloTrace, "--no-progress"}, &plain, &err), 0) << err;
  ASSERT_EQ(
      run_replay({kSloTrace, "--no-progress", "--slo", "ttft_p99=100s,preemptions=0"}, &out, &err),
      0)
      << err;
  EXPECT_EQ(out.rfind(plain, 0), 0u) << "the summary table changed:\n" << out;
  const std::string slo_lines = out.substr(plain.size());
  EXPECT_NE(slo_lines.find("slo ttft_p99 "), std::string::npos) << slo_lines;
  EXPECT_NE(slo_lines.find("<= 100 s  met\n"), std::string::npos) << slo_lines;
  EXPECT_NE(slo_lines.find("slo preemptions "), std::string::npos) << slo_lines;
}

TEST(ReplaySlo, AMissedTargetFailsOnlyWithFailOnSlo) {
  std::string out, err;
  // No request of a replay reaches its first token in under a microsecond.
  EXPECT_EQ(
      run_replay({kSloTrace, "--no-progress", "--quiet", "--slo", "ttft_p99=1us"}, &out, &err), 0);
  EXPECT_NE(out.find("MISSED"), std::string::npos) << out;
  EXPECT_EQ(
      run_replay({kSloTrace, "--no-progress", "--quiet", "--slo", "ttft_p99=1us", "--fail-on-slo"},
                 &out, &err),
      1);
  EXPECT_EQ(out.find("TTFT"), std::string::npos) << "--quiet prints no table:\n" << out;
  EXPECT_NE(out.find("slo ttft_p99"), std::string::npos) << out;
  EXPECT_EQ(
      run_replay({kSloTrace, "--no-progress", "--quiet", "--slo", "ttft_p99=100s", "--fail-on-slo"},
                 &out, &err),
      0);
  EXPECT_NE(out.find("met"), std::string::npos) << out;
}

TEST(ReplaySlo, BadSloValuesExitTwoNamingTheFlagAndItem) {
  std::string out, err;
  EXPECT_EQ(run_replay({kSloTrace, "--slo", "ttft_p99=2"}, &out, &err), 2);
  EXPECT_EQ(err.rfind("llmsim replay: --slo: ttft_p99=2: ttft_p99 is a latency", 0), 0u) << err;
  EXPECT_EQ(run_replay({kSloTrace, "--slo", "latency=2s"}, &out, &err), 2);
  EXPECT_NE(err.find("--slo: latency=2s: unknown figure 'latency'; accepted: ttft_mean"),
            std::string::npos)
      << err;
  EXPECT_EQ(run_replay({kSloTrace, "--fail-on-slo"}, &out, &err), 2);
  EXPECT_EQ(err, "llmsim replay: --fail-on-slo: needs --slo KEY=V,...\n");
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace llm
