// Tests for sharded sweeps: `llmsim sweep --shard I/N` and `llmsim sweep-merge`
// (sim/cli/sweep_merge_command.h). Three shards merged write what one unsharded run writes, byte
// for byte (sweep.csv, sweep.json, each summary.json, the report), whether the shards share a
// folder or not; a missing, duplicated, corrupt or foreign shard is named and nothing is written.
#include "sim/cli/sweep_merge_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/sweep_command.h"

namespace llm::sharded_sweep_test {

namespace fs = std::filesystem;

const std::string kTrace = "synthetic:n=200,rate=40,seed=9";

// Eight points, two of them refused (chunked prefill off with 1024 batched tokens < the model
// length), under an SLO with a per-request target, a fault and more percentiles: failed points,
// SLO marks, goodput, the faults that ran, the percentile columns and ranking all cross the
// shards.
std::vector<std::string> sweep_args() {
  return {kTrace,
          "--max-model-len",
          "2048",
          "--set",
          "max-num-batched-tokens=1024,4096",
          "--set",
          "enable-chunked-prefill=true,false",
          "--set",
          "max-num-seqs=4,32",
          "--slo",
          "ttft_p99=1s,ttft=1s,attainment>=0.5",
          "--fault",
          "http-5xx:20:0:1s",
          "--metric-percentiles",
          "25,99.5",
          "--jobs",
          "2",
          "--no-progress"};
}

struct CmdRun {
  int code;
  std::string out, err;
};

CmdRun sweep(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = run_sweep_command(args, out, err);
  return {code, out.str(), err.str()};
}

CmdRun merge(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = run_sweep_merge_command(args, out, err);
  return {code, out.str(), err.str()};
}

std::vector<std::string> plus(std::vector<std::string> args, const std::vector<std::string>& more) {
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("sweep_merge_" + name);
  fs::remove_all(dir);
  return dir;
}

// Every file under `dir` (relative path -> bytes), the shard records and logs left out.
std::map<std::string, std::string> files_under(const fs::path& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    if (name.rfind("shard-", 0) == 0) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    files[fs::relative(e.path(), dir).string()] = text.str();
  }
  return files;
}

// The unsharded run's files, written to `out` and read back, then `out` removed.
std::map<std::string, std::string> unsharded(const fs::path& out) {
  const CmdRun run = sweep(
      plus(sweep_args(), {"--out", out.string(), "--report", (out / "report.html").string()}));
  EXPECT_EQ(run.code, 1) << run.err;  // the two refused points
  auto files = files_under(out);
  fs::remove_all(out);
  return files;
}

void run_shard(int index, int count, const fs::path& out) {
  const CmdRun run =
      sweep(plus(sweep_args(), {"--out", out.string(), "--shard",
                                std::to_string(index) + "/" + std::to_string(count)}));
  EXPECT_LE(run.code, 1) << run.err;
  EXPECT_TRUE(fs::exists(
      out / ("shard-" + std::to_string(index) + "-of-" + std::to_string(count) + ".json")));
  EXPECT_FALSE(fs::exists(out / "sweep.csv"));  // a shard writes no tables
}

TEST(SweepMerge, ThreeShardsInOneFolderWriteTheUnshardedRunsBytes) {
  const fs::path out = fresh_dir("shared") / "out";
  const auto expected = unsharded(out);
  ASSERT_EQ(expected.count("sweep.csv"), 1u);
  ASSERT_EQ(expected.count("report.html"), 1u);
  ASSERT_EQ(expected.size(), 3u + 6u);  // csv, json, report and the six points that ran
  const std::string& csv = expected.at("sweep.csv");
  EXPECT_NE(csv.find(",slo,faults,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",http-5xx:20:0s:1s,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",ttft_p99.9,ttft_p25,ttft_p99.5,ttft_max,"), std::string::npos) << csv;
  EXPECT_NE(expected.at("report.html").find("SLO per point"), std::string::npos);
  for (int i = 0; i < 3; ++i) run_shard(i, 3, out);
  const CmdRun merged =
      merge({out.string(), "--out", out.string(), "--report", (out / "report.html").string()});
  EXPECT_EQ(merged.code, 1) << merged.err;  // as the unsharded run: two points failed
  EXPECT_NE(merged.err.find("point 3_max-num-batched-tokens=1024_enable-chunked-prefill=false_max-"
                            "num-seqs=32 failed"),
            std::string::npos)
      << merged.err;
  EXPECT_NE(merged.out.find("llmsim sweep: 8 points"), std::string::npos) << merged.out;
  const auto got = files_under(out);
  ASSERT_EQ(got.size(), expected.size());
  for (const auto& [name, bytes] : expected) {
    ASSERT_EQ(got.count(name), 1u) << name;
    EXPECT_TRUE(got.at(name) == bytes) << name << " differs";
  }
}

TEST(SweepMerge, ShardsInTheirOwnFoldersAndMoreShardsThanSomeNeed) {
  const fs::path root = fresh_dir("separate");
  const fs::path out = root / "out";
  const auto expected = unsharded(out);
  // Five shards of eight points; each in its own folder; merged into a third.
  std::vector<std::string> dirs;
  for (int i = 0; i < 5; ++i) {
    const fs::path dir = root / ("shard" + std::to_string(i));
    run_shard(i, 5, dir);
    dirs.push_back(dir.string());
  }
  const CmdRun merged = merge(
      plus(dirs, {"--out", out.string(), "--report", (out / "report.html").string(), "--quiet"}));
  EXPECT_EQ(merged.code, 1) << merged.err;
  EXPECT_EQ(merged.out, "");
  EXPECT_EQ(files_under(out), expected);
}

TEST(SweepMerge, AMissingShardIsNamedAndNothingIsWritten) {
  const fs::path root = fresh_dir("missing");
  const fs::path shards = root / "shards", out = root / "out";
  run_shard(0, 4, shards);
  run_shard(2, 4, shards);
  const CmdRun merged =
      merge({shards.string(), "--out", out.string(), "--report", (out / "report.html").string()});
  EXPECT_EQ(merged.code, 1);
  EXPECT_NE(merged.err.find("llmsim sweep-merge: shards 1/4, 3/4 are missing (no "
                            "shard-I-of-4.json in " +
                            shards.string() +
                            "): it failed, was cancelled or has not run; "
                            "nothing was written"),
            std::string::npos)
      << merged.err;
  EXPECT_FALSE(fs::exists(out));

  // With --shards, even a folder without any record names every shard.
  const fs::path empty = root / "empty";
  fs::create_directories(empty);
  const CmdRun none = merge({empty.string(), "--shards", "2", "--out", out.string()});
  EXPECT_EQ(none.code, 1);
  EXPECT_NE(none.err.find("shards 0/2, 1/2 are missing"), std::string::npos) << none.err;
  const CmdRun other = merge({shards.string(), "--shards", "3", "--out", out.string()});
  EXPECT_NE(other.err.find("shard-0-of-4.json is shard 0/4 but --shards is 3"), std::string::npos)
      << other.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(SweepMerge, BadShardsAreNamedAndNothingIsWritten) {
  const fs::path root = fresh_dir("bad");
  const fs::path a = root / "a", b = root / "b", out = root / "out";
  run_shard(0, 2, a);
  run_shard(1, 2, a);
  struct Case {
    std::string what;
    std::function<void()> spoil;
    std::vector<std::string> dirs;
    std::string message;
  };
  const std::string record1 = (a / "shard-1-of-2.json").string();
  std::string saved;
  {
    std::ifstream in(record1);
    std::stringstream text;
    text << in.rdbuf();
    saved = text.str();
  }
  const auto restore = [&] {
    fs::remove_all(b);
    std::ofstream(record1) << saved;
  };
  const Case cases[] = {
      {"none", [&] { fs::create_directories(b); }, {b.string()}, "no shard records"},
      {"corrupt",
       [&] { std::ofstream(record1) << "{\"format\": \"llmsim-sweep-shard/1\""; },
       {a.string()},
       record1 + ": "},
      {"twice",
       [&] {
         fs::create_directories(b);
         fs::copy_file(record1, b / "shard-1-of-2.json");
       },
       {a.string(), b.string()},
       "shard 1/2 is there twice"},
      {"other split",
       [&] {
         fs::create_directories(b);
         std::ofstream(b / "shard-2-of-3.json") << "{}";
       },
       {a.string(), b.string()},
       "shard-2-of-3.json: not a sweep shard record"},
      {"not whole",
       [&] {
         fs::rename(a / "1_max-num-batched-tokens=1024_enable-chunked-prefill=true_max-num-"
                        "seqs=32",
                    b);
       },
       {a.string()},
       "shard 1/2 is not whole: "},
  };
  for (const Case& c : cases) {
    c.spoil();
    const CmdRun merged = merge(plus(c.dirs, {"--out", out.string()}));
    EXPECT_EQ(merged.code, 1) << c.what;
    EXPECT_NE(merged.err.find(c.message), std::string::npos) << c.what << ": " << merged.err;
    EXPECT_NE(merged.err.find("nothing was written"), std::string::npos) << c.what;
    EXPECT_FALSE(fs::exists(out)) << c.what;
    if (c.what == "not whole") {
      fs::rename(b,
                 a / "1_max-num-batched-tokens=1024_enable-chunked-prefill=true_max-num-seqs=32");
    }
    restore();
  }
  // A shard of another sweep (another trace seed).
  const fs::path c = root / "c";
  std::vector<std::string> other = sweep_args();
  other[0] = "synthetic:n=200,rate=40,seed=10";
  ASSERT_LE(sweep(plus(other, {"--out", c.string(), "--shard", "1/2"})).code, 1);
  fs::remove(record1);
  const CmdRun merged = merge({a.string(), c.string(), "--out", out.string()});
  EXPECT_EQ(merged.code, 1);
  EXPECT_NE(merged.err.find("not the same sweep as"), std::string::npos) << merged.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(SweepMerge, ShardAndMergeUsage) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string dir = fresh_dir("usage").string();
  const Case sweep_cases[] = {
      {{"--shard", "0/2"}, "--shard: needs --out DIR"},
      {{"--shard", "0/2", "--out", dir, "--report", dir + "/r.html"},
       "--report: not with --shard (give it to llmsim sweep-merge)"},
      {{"--shard", "2/2", "--out", dir}, "--shard: expected I/N or auto/N"},
      {{"--shards", "2", "--out", dir}, "--shards: needs --emit slurm|k8s"},
      {{"--emit", "slurm", "--out", dir}, "--emit: needs --shards N"},
      {{"--emit", "pbs", "--shards", "2", "--out", dir}, "--emit: expected slurm or k8s"},
      {{"--emit", "slurm", "--shards", "2"}, "--emit: needs --out DIR"},
      {{"--image", "x", "--emit", "slurm", "--shards", "2", "--out", dir},
       "--image: only with --emit k8s"},
      {{"--set", "shard=1/2"}, "--shard cannot be swept"},
  };
  for (const Case& c : sweep_cases) {
    const CmdRun run = sweep(plus({kTrace, "--set", "max-num-seqs=4,8"}, c.args));
    EXPECT_EQ(run.code, 2) << c.message;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
  }
  const Case merge_cases[] = {
      {{"--out", dir}, "expected the shards' output folders"},
      {{dir + "/nope", "--out", dir}, "nope: not a folder"},
      {{fs::path(::testing::TempDir()).string()}, "--out: missing"},
  };
  for (const Case& c : merge_cases) {
    const CmdRun run = merge(c.args);
    EXPECT_EQ(run.code, 2) << c.message;
    EXPECT_NE(run.err.find(c.message), std::string::npos) << run.err;
  }
  EXPECT_EQ(merge({"--help"}).code, 0);
}

TEST(SweepMerge, EmitWritesTheClusterJobs) {
  const fs::path dir = fresh_dir("emit");
  const CmdRun slurm = sweep(plus({kTrace, "--set", "max-num-seqs=4,8,16", "--jobs", "2"},
                                  {"--shards", "3", "--emit", "slurm", "--out", dir.string(),
                                   "--report", (dir / "r.html").string()}));
  ASSERT_EQ(slurm.code, 0) << slurm.err;
  EXPECT_NE(slurm.out.find("sbatch --wait sweep.sbatch"), std::string::npos) << slurm.out;
  std::ifstream driver(dir / "sweep.sbatch"), shard(dir / "sweep-shard.sbatch");
  std::stringstream d, s;
  d << driver.rdbuf();
  s << shard.rdbuf();
  EXPECT_NE(d.str().find("sbatch --wait --array=0-2 "), std::string::npos) << d.str();
  EXPECT_NE(d.str().find("sweep-merge " + dir.string() + " --shards 3 --out " + dir.string() +
                         " --report " + (dir / "r.html").string()),
            std::string::npos)
      << d.str();
  EXPECT_NE(s.str().find("--shard auto/3"), std::string::npos) << s.str();
  EXPECT_NE(s.str().find("#SBATCH --cpus-per-task=2"), std::string::npos) << s.str();
  EXPECT_EQ(s.str().find("--report"), std::string::npos) << s.str();
  EXPECT_FALSE(fs::exists(dir / "sweep.csv"));  // nothing ran

  const CmdRun k8s =
      sweep({"traces/azure.csv", "--set", "max-num-seqs=4,8", "--shards", "2", "--emit", "k8s",
             "--image", "example.com/llmserve:1", "--out", dir.string()});
  ASSERT_EQ(k8s.code, 0) << k8s.err;
  std::ifstream job(dir / "sweep-shards.yaml");
  std::stringstream j;
  j << job.rdbuf();
  EXPECT_NE(j.str().find("completionMode: Indexed"), std::string::npos) << j.str();
  EXPECT_NE(j.str().find("\"/traces/azure.csv\""), std::string::npos) << j.str();
  EXPECT_NE(j.str().find("\"--out\", \"/results/sweep_merge_emit\""), std::string::npos) << j.str();
  EXPECT_TRUE(fs::exists(dir / "sweep-merge.yaml"));
  EXPECT_TRUE(fs::exists(dir / "sweep-k8s.sh"));
}

}  // namespace llm::sharded_sweep_test
