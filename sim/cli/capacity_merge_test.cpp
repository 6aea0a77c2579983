// Tests for sharded capacity searches (`llmsim capacity --shard I/N --out DIR` and
// `llmsim capacity-merge`, sim/cli/capacity_command.h): two shards of three --search candidates
// merged print and write what one unsharded run does, byte for byte (stdout, --result-json,
// --report); a missing shard is named and nothing is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/capacity_command.h"

namespace llm::capacity_merge_test {

namespace fs = std::filesystem;

const std::string kTrace = std::string(LLM_SOURCE_DIR) + "/traces/azure-conv-sample.json";

struct Result {
  int code;
  std::string out, err;
};

Result capacity(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = run_capacity_command(args, out, err);
  return {code, out.str(), err.str()};
}

Result merge(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = run_capacity_merge_command(args, out, err);
  return {code, out.str(), err.str()};
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> question() {
  return {kTrace, "--slo",    "ttft_p99=2s,tpot_p99=100ms", "--arrival-rate-scale",
          "20",   "--search", "max-num-seqs=2,16,256",      "--jobs",
          "2"};
}

std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(CapacityMerge, TwoShardsMergedAreTheUnshardedRunByteForByte) {
  const fs::path dir = fs::path(::testing::TempDir()) / "capacity_merge_same";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string json = (dir / "r.json").string(), report = (dir / "r.html").string();
  const Result whole = capacity(plus(question(), {"--result-json", json, "--report", report}));
  ASSERT_EQ(whole.code, 0) << whole.err;
  const std::string whole_json = slurp(json), whole_report = slurp(report);
  fs::remove(json);
  fs::remove(report);
  const fs::path shards = dir / "shards";
  for (const char* shard : {"0/2", "1/2"}) {
    const Result r = capacity(plus(question(), {"--shard", shard, "--out", shards.string()}));
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("capacity shard "), std::string::npos) << r.out;
  }
  EXPECT_TRUE(fs::exists(shards / "capacity-shard-0-of-2.json"));
  const Result merged =
      merge({shards.string(), "--shards", "2", "--result-json", json, "--report", report});
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_EQ(merged.out, whole.out);
  EXPECT_TRUE(slurp(json) == whole_json) << "--result-json differs";
  EXPECT_TRUE(slurp(report) == whole_report) << "--report differs";
}

TEST(CapacityMerge, AMissingShardIsNamedAndNothingIsWritten) {
  const fs::path dir = fs::path(::testing::TempDir()) / "capacity_merge_missing";
  fs::remove_all(dir);
  ASSERT_EQ(capacity(plus(question(), {"--shard", "1/3", "--out", dir.string()})).code, 0);
  const std::string json = (dir / "r.json").string();
  const Result merged = merge({dir.string(), "--shards", "3", "--result-json", json});
  EXPECT_EQ(merged.code, 1);
  EXPECT_NE(merged.err.find("missing shard(s) 0/3, 2/3"), std::string::npos) << merged.err;
  EXPECT_NE(merged.err.find("nothing was written"), std::string::npos) << merged.err;
  EXPECT_FALSE(fs::exists(json));
  // Usage: --shard needs --out; --report belongs to the merge.
  EXPECT_EQ(capacity(plus(question(), {"--shard", "0/2"})).code, 2);
  const Result with_report =
      capacity(plus(question(), {"--shard", "0/2", "--out", dir.string(), "--report", json}));
  EXPECT_EQ(with_report.code, 2);
  EXPECT_NE(with_report.err.find("--report: not with --shard"), std::string::npos)
      << with_report.err;
}

}  // namespace llm::capacity_merge_test
