// Tests for the shard assignment of `llmsim sweep --shard I/N` (sim/sweep/sweep_shard.h): the
// parse of I/N and auto/N (table), point k on shard k mod N, and every point on exactly one shard.
#include "sim/sweep/sweep_shard.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/flag_set.h"

namespace llm {
namespace {

EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(SweepShard, ParsesIndexOverCount) {
  struct Case {
    std::string text;
    std::map<std::string, std::string> env;
    int index, count;
  };
  const Case cases[] = {
      {"0/1", {}, 0, 1},
      {"2/3", {}, 2, 3},
      {"0/100000", {}, 0, 100000},
      {"auto/4", {{"SLURM_ARRAY_TASK_ID", "3"}}, 3, 4},
      {"auto/4", {{"JOB_COMPLETION_INDEX", "1"}}, 1, 4},
      // Slurm's variable first when both are set.
      {"auto/4", {{"SLURM_ARRAY_TASK_ID", "2"}, {"JOB_COMPLETION_INDEX", "0"}}, 2, 4},
  };
  for (const Case& c : cases) {
    const SweepShard shard = parse_sweep_shard("--shard", c.text, env_of(c.env));
    EXPECT_EQ(shard.index, c.index) << c.text;
    EXPECT_EQ(shard.count, c.count) << c.text;
  }
}

TEST(SweepShard, RefusesWhatIsNotAShardNamingWhy) {
  struct Case {
    std::string text;
    std::map<std::string, std::string> env;
    std::string message;
  };
  const Case cases[] = {
      {"3", {}, "--shard: expected I/N or auto/N"},
      {"3/3", {}, "got '3/3'"},
      {"-1/3", {}, "got '-1/3'"},
      {"0/0", {}, "got '0/0'"},
      {"1/x", {}, "got '1/x'"},
      {"1/", {}, "got '1/'"},
      {"/2", {}, "got '/2'"},
      {"0/100001", {}, "got '0/100001'"},
      {" 1/2", {}, "got ' 1/2'"},
      {"auto/4",
       {},
       "--shard auto/4: no shard index in the environment (SLURM_ARRAY_TASK_ID or "
       "JOB_COMPLETION_INDEX unset"},
      {"auto/4",
       {{"SLURM_ARRAY_TASK_ID", "4"}},
       "--shard auto/4: SLURM_ARRAY_TASK_ID='4' is not a shard index below 4"},
      {"auto/4", {{"JOB_COMPLETION_INDEX", "one"}}, "JOB_COMPLETION_INDEX='one'"},
  };
  for (const Case& c : cases) {
    try {
      parse_sweep_shard("--shard", c.text, env_of(c.env));
      ADD_FAILURE() << c.text << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

TEST(SweepShard, PointKIsShardKModN) {
  struct Case {
    size_t points;
    SweepShard shard;
    std::vector<size_t> expected;
  };
  const Case cases[] = {
      {8, {0, 3}, {0, 3, 6}}, {8, {1, 3}, {1, 4, 7}},
      {8, {2, 3}, {2, 5}},    {2, {2, 3}, {}},  // more shards than points: an empty shard
      {0, {0, 1}, {}},        {4, {0, 1}, {0, 1, 2, 3}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(shard_points(c.points, c.shard), c.expected) << shard_label(c.shard);
    for (size_t k = 0; k < c.points; ++k) {
      const bool listed = std::find(c.expected.begin(), c.expected.end(), k) != c.expected.end();
      EXPECT_EQ(in_shard(k, c.shard), listed) << k;
    }
  }
  EXPECT_EQ(shard_record_name({2, 3}), "shard-2-of-3.json");
}

RC_GTEST_PROP(SweepShard, EveryPointIsOnExactlyOneShard, ()) {
  const auto points = *rc::gen::inRange<size_t>(0, 300);
  const auto count = *rc::gen::inRange(1, 40);
  std::vector<int> seen(points, 0);
  for (int i = 0; i < count; ++i) {
    for (size_t k : shard_points(points, {i, count})) {
      RC_ASSERT(k < points);
      RC_ASSERT(static_cast<int>(k % static_cast<size_t>(count)) == i);
      ++seen[k];
    }
  }
  for (int n : seen) RC_ASSERT(n == 1);
}

}  // namespace
}  // namespace llm
