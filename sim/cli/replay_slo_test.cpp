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

const std::string kAzureSample = std::string(LLM_SOURCE_DIR) + "/traces/azure-conv-sample.json";
const std::string kMooncakeSample = std::string(LLM_SOURCE_DIR) + "/traces/mooncake-sample.jsonl";

// The case: --max-model-len 200 refuses 341 of the 400 requests; the 59 served ones are
// fast, and a TTFT p99 target must still fail, saying over how many requests it was taken.
TEST(ReplaySlo, RefusedRequestsFailALatencySlo) {
  std::string out, err;
  EXPECT_EQ(run_replay({kAzureSample, "--no-progress", "--max-model-len", "200", "--slo",
                        "ttft_p99=1s", "--fail-on-slo"},
                       &out, &err),
            1)
      << out << err;
  EXPECT_NE(out.find("slo ttft_p99  inf <= 1 s  MISSED  (over 400 sequences; 341 refused or "
                     "failed count as missed: 85.25%)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Refused or failed                              341 of 400 sequences"),
            std::string::npos)
      << out;
  EXPECT_EQ(run_replay({kAzureSample, "--no-progress", "--quiet", "--max-model-len", "200", "--slo",
                        "error_rate=0.01", "--fail-on-slo"},
                       &out, &err),
            1);
  EXPECT_NE(out.find("slo error_rate  0.8525 <= 0.01  MISSED"), std::string::npos) << out;
}

TEST(ReplaySlo, PercentilesAsPeopleWriteThemAndAttainment) {
  std::string out, err;
  ASSERT_EQ(run_replay({kAzureSample, "--no-progress", "--slo",
                        "ttft_p95=10s,e2e_p99.9=60s,queue_p90=10s,ttft=2s,tpot=100ms,"
                        "attainment>=0.99",
                        "--metric-percentiles", "25,75,99.9", "--fail-on-slo"},
                       &out, &err),
            0)
      << out << err;
  EXPECT_NE(out.find("Latency                                               n      mean       p25 "
                     "      p75     p99.9  unit\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("Goodput (ttft <= 2 s, tpot <= 100 ms)"), std::string::npos) << out;
  for (const char* line : {"slo ttft_p95 ", "slo e2e_p99.9 ", "slo queue_p90 ",
                           "slo attainment  1 >= 0.99  met  (ttft <= 2 s, tpot <= 100 ms per "
                           "request: 400 of 400 sequences good)"}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
  }
  EXPECT_EQ(run_replay({kAzureSample, "--metric-percentiles", "50,101"}, &out, &err), 2);
  EXPECT_NE(err.find("--metric-percentiles: expected percentiles from 0 to 100"), std::string::npos)
      << err;
}

// Latencies of many minutes switch the row to seconds or minutes, and the columns stay apart.
TEST(ReplaySlo, LargeLatenciesSwitchUnitsAndColumnsNeverTouch) {
  std::string out, err;
  ASSERT_EQ(run_replay({kAzureSample, "--no-progress", "--arrival-rate-scale", "100",
                        "--max-num-seqs", "2", "--max-model-len", "8192"},
                       &out, &err),
            0)
      << err;
  std::istringstream lines(out);
  std::string line;
  bool seconds = false;
  while (std::getline(lines, line)) {
    if (line.size() > 47 && line.find("  unit") == std::string::npos &&
        (line.rfind("TTFT", 0) == 0 || line.rfind("E2E", 0) == 0 || line.rfind("Queue", 0) == 0)) {
      // Every number of the row is separated from the next by at least two spaces.
      std::istringstream cells(line.substr(46));
      std::string cell;
      while (cells >> cell) {
        if (cell == "ms" || cell == "s" || cell == "min") break;
        EXPECT_LE(cell.size(), 8u) << line;
      }
      seconds = seconds || line.substr(line.size() - 3) == "  s";
    }
  }
  EXPECT_TRUE(seconds) << "no row switched to seconds:\n" << out;
}

// A bursty trace (requests arriving together) keeps its bursts when stretched: a warning says so;
// --load-scaling sample scales the request count instead, and the summary says which ran.
TEST(ReplaySlo, LoadScalingSaysWhichRanAndWarnsWhenStretchingCannotHelp) {
  std::string out, err;
  ASSERT_EQ(
      run_replay({kMooncakeSample, "--no-progress", "--arrival-rate-scale", "0.5"}, &out, &err), 0)
      << err;
  EXPECT_NE(err.find("warning: --arrival-rate-scale 0.5 stretches time"), std::string::npos) << err;
  EXPECT_NE(out.find("Load scaling                                   stretch 0.5x"),
            std::string::npos)
      << out;
  ASSERT_EQ(run_replay({kMooncakeSample, "--no-progress", "--arrival-rate-scale", "2.5",
                        "--load-scaling", "sample"},
                       &out, &err),
            0)
      << err;
  EXPECT_EQ(err, "");
  EXPECT_NE(out.find("sample 2.5x (2 copies + one thinned to 50%)"), std::string::npos) << out;
  EXPECT_EQ(run_replay({kMooncakeSample, "--load-scaling", "thin"}, &out, &err), 2);
  EXPECT_NE(err.find("--load-scaling"), std::string::npos) << err;
  EXPECT_EQ(run_replay({kMooncakeSample, "--loop-to", "soon"}, &out, &err), 2);
  EXPECT_NE(err.find("--loop-to: expected a duration"), std::string::npos) << err;
}

}  // namespace
}  // namespace llm
