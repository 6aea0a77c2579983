// Tests for `llmsim sweep` (sim/cli/sweep_command.h): a point's summary is byte for byte the
// summary of the same `llmsim replay` command line, results do not depend on --jobs, bad --set
// values exit 2 naming the --set before anything runs, and a failing point loses no other.
#include "sim/cli/sweep_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/replay_command.h"
#include "sim/cli/testing/bursty_trace.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

// Busy enough that --max-num-seqs, data parallelism and the rate scale change the figures.
const std::string kSweepTrace = "synthetic:n=300,rate=40,seed=5";

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("sweep_command_" + name);
  fs::remove_all(dir);
  return dir;
}

struct SweepRun {
  int code;
  std::string out, err;
};

SweepRun sweep(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = run_sweep_command(args, out, err);
  return {code, out.str(), err.str()};
}

TEST(SweepCommand, EachPointsSummaryIsTheSameReplays) {
  const fs::path dir = fresh_dir("same_as_replay");
  const SweepRun run =
      sweep({kSweepTrace, "--set", "max-num-seqs=4,32", "--set", "data-parallel-size=1,2",
             "--set=arrival-rate-scale=1,3", "--block-size", "32", "--out", dir.string(), "--jobs",
             "3", "--no-progress"});
  ASSERT_EQ(run.code, 0) << run.err;
  const auto doc = nlohmann::json::parse(read_file(dir / "sweep.json"));
  ASSERT_EQ(doc["points"].size(), 8u);
  std::set<std::string> distinct_summaries;
  for (const auto& point : doc["points"]) {
    const std::string dp = point["settings"]["data-parallel-size"];
    const std::string seqs = point["settings"]["max-num-seqs"];
    const std::string scale = point["settings"]["arrival-rate-scale"];
    const fs::path replay_dir = fresh_dir("replay_" + seqs + "_" + dp + "_" + scale);
    std::ostringstream out, err;
    ASSERT_EQ(run_replay_command({kSweepTrace, "--block-size", "32", "--max-num-seqs", seqs,
                                  "--data-parallel-size", dp, "--arrival-rate-scale", scale,
                                  "--output-dir", replay_dir.string(), "--quiet", "--no-progress"},
                                 out, err),
              0)
        << err.str();
    const std::string expected = read_file(replay_dir / "summary.json");
    ASSERT_FALSE(expected.empty());
    EXPECT_EQ(read_file(dir / point["dir"].get<std::string>() / "summary.json"), expected)
        << point["dir"];
    distinct_summaries.insert(expected);
  }
  EXPECT_EQ(distinct_summaries.size(), 8u);  // every flag changed the outcome
}

TEST(SweepCommand, ResultsDoNotDependOnJobs) {
  std::vector<std::string> outputs;
  for (const char* jobs : {"1", "2", "7"}) {
    const fs::path dir = fresh_dir(std::string("jobs_") + jobs);
    const SweepRun run = sweep({kSweepTrace, "--set", "max-num-seqs=2,8,64", "--set",
                                "async-scheduling=true,false", "--set", "kv-cache-dtype=auto,fp8",
                                "--jobs", jobs, "--out", dir.string(), "--no-progress"});
    ASSERT_EQ(run.code, 0) << run.err;
    std::string all = run.out + read_file(dir / "sweep.csv") + read_file(dir / "sweep.json");
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_directory()) all += read_file(entry.path() / "summary.json");
    }
    outputs.push_back(all);
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_EQ(outputs[0], outputs[2]);
}

TEST(SweepCommand, TableIsSortedByTheChosenFigure) {
  const SweepRun by_ttft = sweep({kSweepTrace, "--set", "max-num-seqs=1,64", "--no-progress"});
  ASSERT_EQ(by_ttft.code, 0) << by_ttft.err;
  EXPECT_NE(by_ttft.out.find("\n1     64 "), std::string::npos) << by_ttft.out;
  const SweepRun by_tpot = sweep({kSweepTrace, "--set", "max-num-seqs=1,64", "--sort", "tpot_p99",
                                  "--quiet", "--no-progress"});
  EXPECT_EQ(by_tpot.code, 0);
  EXPECT_EQ(by_tpot.out, "");  // --quiet
  const SweepRun by_tpot_table =
      sweep({kSweepTrace, "--set", "max-num-seqs=1,64", "--sort", "tpot_p99", "--no-progress"});
  EXPECT_NE(by_tpot_table.out.find("\n1     1 "), std::string::npos) << by_tpot_table.out;
}

TEST(SweepCommand, BadInputExitsTwoNamingTheSetBeforeAnythingRuns) {
  const struct {
    std::vector<std::string> args;
    const char* message;
  } cases[] = {
      {{kSweepTrace}, "--set: required"},
      {{kSweepTrace, "--set", "max-num-seqs="}, "--set max-num-seqs=: no values (an empty grid)"},
      {{kSweepTrace, "--set", "max-num-seqz=1,2"},
       "--set max-num-seqz=1,2: unknown flag --max-num-seqz"},
      {{kSweepTrace, "--set", "max-num-seqs=8,0"},
       "--set max-num-seqs=8,0: --max-num-seqs: must be at least 1"},
      {{kSweepTrace, "--set", "max-num-seqs=8", "--set", "kv-cache-dtype=fp8,int3"},
       "--set kv-cache-dtype=fp8,int3: --kv-cache-dtype"},
      {{kSweepTrace, "--set", "gpu=H200,H900"}, "--set gpu=H200,H900: --gpu"},
      {{kSweepTrace, "--set", "async-scheduling=yes"},
       "--set async-scheduling=yes: --async-scheduling: takes no value"},
      {{kSweepTrace, "--set", "routing-policy=round-robin,random"},
       "--set routing-policy=round-robin,random: --routing-policy"},
      {{kSweepTrace, "--set", "max-num-seqs=8", "--max-num-seqs", "4"},
       "--set max-num-seqs=8: --max-num-seqs is also given outside --set"},
      {{kSweepTrace, "--set", "metrics-out=a.om"},
       "--set metrics-out=a.om: --metrics-out cannot be"},
      {{kSweepTrace, "--set", "max-num-seqs=8", "--output-dir", "x"}, "--output-dir: not for"},
      {{kSweepTrace, "--set", "max-num-seqs=8", "--sort", "ttft_p142"}, "--sort: unknown figure"},
      {{kSweepTrace, "--set", "max-num-seqs=8", "--jobs", "0"}, "--jobs: must be at least 1"},
      {{kSweepTrace, "--set", "max-num-seqs=8", "--max-num-seqz", "4"},
       "unknown flag --max-num-seqz: did you mean --max-num-seqs? (see llmsim sweep --help)"},
      {{"--set", "max-num-seqs=8"}, "missing TRACE"},
      {{"/nonexistent/trace.json", "--set", "max-num-seqs=8"}, "/nonexistent/trace.json"},
  };
  for (const auto& c : cases) {
    const fs::path dir = fresh_dir("bad");
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--out", dir.string(), "--no-progress"});
    const SweepRun run = sweep(args);
    EXPECT_EQ(run.code, 2) << c.message;
    EXPECT_NE(run.err.find("llmsim sweep: " + std::string(c.message)), std::string::npos)
        << "want '" << c.message << "', got: " << run.err;
    EXPECT_EQ(run.out, "") << c.message;
    EXPECT_FALSE(fs::exists(dir / "sweep.json")) << c.message;
  }
}

TEST(SweepCommand, AFailingPointIsReportedAndTheOthersStillRun) {
  // Chunked prefill off needs --max-num-batched-tokens >= --max-model-len: only the
  // (1024, false) combination is refused; each value alone is fine.
  const fs::path dir = fresh_dir("failing_point");
  const SweepRun run =
      sweep({kSweepTrace, "--max-model-len", "2048", "--set", "max-num-batched-tokens=1024,4096",
             "--set", "enable-chunked-prefill=true,false", "--out", dir.string(), "--no-progress"});
  EXPECT_EQ(run.code, 1);
  EXPECT_NE(run.err.find("point 1_max-num-batched-tokens=1024_enable-chunked-prefill=false "
                         "failed: --max-num-batched-tokens (1024)"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.out.find("FAILED: --max-num-batched-tokens (1024)"), std::string::npos) << run.out;
  const auto doc = nlohmann::json::parse(read_file(dir / "sweep.json"));
  ASSERT_EQ(doc["points"].size(), 4u);
  int ok = 0;
  for (const auto& point : doc["points"]) {
    const bool is_ok = point["status"] == "ok";
    ok += is_ok;
    EXPECT_EQ(fs::exists(dir / point["dir"].get<std::string>() / "summary.json"), is_ok);
  }
  EXPECT_EQ(ok, 3);
  EXPECT_EQ(doc["points"][3]["status"], "failed");  // failed points rank last
}

TEST(SweepCommand, TheTraceMayFollowADoubleDash) {
  const SweepRun run = sweep({"--set", "max-num-seqs=1,64", "--quiet", "--", kSweepTrace});
  EXPECT_EQ(run.code, 0) << run.err;
}

// Stretching a bursty trace cannot change its bursts: one warning names the stretching scales
// (as llmsim replay's does); --load-scaling sample and a sweep that scales nothing are quiet.
TEST(SweepCommand, WarnsOnceWhenItStretchesABurstyTrace) {
  const std::string trace = testing::bursty_trace("sweep_bursty");
  SweepRun run = sweep({trace, "--set", "arrival-rate-scale=0.5,1,2", "--quiet", "--no-progress"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.err.rfind("llmsim sweep: warning: --arrival-rate-scale 0.5, 2 stretch time, and 40 "
                          "requests arrive on 10 instants (up to 4 at once)",
                          0),
            0u)
      << run.err;
  EXPECT_EQ(run.err.find("warning", 30), std::string::npos) << "twice: " << run.err;
  run = sweep({trace, "--set", "arrival-rate-scale=0.5,2", "--load-scaling", "sample", "--quiet",
               "--no-progress"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.err, "");
  run = sweep({trace, "--set", "max-num-seqs=1,4", "--quiet", "--no-progress"});
  EXPECT_EQ(run.err, "");
}

TEST(SweepCommand, HelpExitsZero) {
  const SweepRun run = sweep({"--help"});
  EXPECT_EQ(run.code, 0);
  EXPECT_NE(run.out.find("usage: llmsim sweep TRACE --set FLAG=V1,V2,..."), std::string::npos);
}

}  // namespace
}  // namespace llm
