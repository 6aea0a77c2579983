// `llmsim dst`: flags and exit codes, the summary, --verbose, and the failure lines with the
// command that replays a seed.
#include "sim/cli/dst_command.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

namespace llm {
namespace {

int run_dst(const std::vector<std::string>& args, std::string* out, std::string* err) {
  std::ostringstream o, e;
  const int code = run_dst_command(args, o, e);
  *out = o.str();
  *err = e.str();
  return code;
}

TEST(DstCommand, RunsTheSeedsAndEndsWithASummaryLine) {
  std::string out, err;
  EXPECT_EQ(run_dst({"--seeds", "20", "--start", "100", "--no-progress"}, &out, &err), 0) << out;
  EXPECT_EQ(err, "");
  EXPECT_TRUE(std::regex_search(
      out, std::regex("\ndst: 20 seeds from 100, 0 failed, [0-9.]+ s, [0-9]+ seeds/s\n$")))
      << out;
  EXPECT_NE(out.find("dst: exercised "), std::string::npos) << out;
}

TEST(DstCommand, VerbosePrintsEachSeedsCaseAndFigures) {
  std::string out, err;
  EXPECT_EQ(run_dst({"--seeds=2", "--verbose", "--no-progress"}, &out, &err), 0) << out;
  for (const char* line : {"seed 0: case: ", "seed 0: ok: ", "seed 1: case: ", "seed 1: ok: "}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
  }
}

TEST(DstCommand, BadUsageExitsWithTwoAndNamesTheFlag) {
  std::string out, err;
  EXPECT_EQ(run_dst({}, &out, &err), 2);
  EXPECT_EQ(err, "llmsim dst: missing --seeds N\n");
  EXPECT_EQ(run_dst({"--seeds", "0"}, &out, &err), 2);
  EXPECT_EQ(err.rfind("llmsim dst: --seeds: ", 0), 0u) << err;
  EXPECT_EQ(run_dst({"--seeds", "1", "--start", "-1"}, &out, &err), 2);
  EXPECT_EQ(run_dst({"--seeds", "2", "--start", "18446744073709551615"}, &out, &err), 2);
  EXPECT_EQ(run_dst({"--seeds", "1", "--frobnicate"}, &out, &err), 2);
  EXPECT_EQ(err, "llmsim dst: unknown flag --frobnicate (see llmsim dst --help)\n");
  EXPECT_EQ(run_dst({"--help"}, &out, &err), 0);
  EXPECT_EQ(out.rfind("usage: llmsim dst --seeds N", 0), 0u);
}

TEST(DstCommand, AFailureNamesTheSeedAndTheInvariantAndHowToReplayIt) {
  DstOutcome o;
  o.seed = 42;
  o.ok = false;
  o.invariant = "KV_BLOCKS";
  o.detail = "engine 0 block 3 has 1 references, held by 0 unfinished sequences";
  EXPECT_EQ(format_dst_failure(o),
            "seed 42: KV_BLOCKS: engine 0 block 3 has 1 references, held by 0 unfinished "
            "sequences\n  replay: llmsim dst --seeds 1 --start 42 --verbose\n");
}

}  // namespace
}  // namespace llm
