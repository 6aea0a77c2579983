// Tests for the record of a sweep shard (sim/sweep/sweep_shard_record.h): it reads back to the
// same points and figures, to the bit (NaN and infinities included), so that sweep-merge's outputs
// are the unsharded run's, and a file that is not a record is refused naming it.
#include "sim/sweep/sweep_shard_record.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "sim/sweep/sweep_results.h"

namespace llm {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

SweepShardRecord sample_record() {
  SweepShardRecord r;
  r.shard = {1, 3};
  r.args = {"synthetic:n=10", "--set", "max-num-seqs=1,2,3,4,5", "--shard", "auto/3"};
  r.grid_points = 5;
  r.indices = {1, 4};
  SweepPointResult ok;
  ok.point = {{"max-num-seqs", "2"}};
  ok.dir_name = "1_max-num-seqs=2";
  ok.ok = true;
  ok.figures.values = {{"ttft_p99", 0.1 + 0.2},
                       {"ttft_mean", std::nan("")},
                       {"e2e_max", std::numeric_limits<double>::infinity()},
                       {"preemptions", 3},
                       {"tiny", 5e-324},
                       {"neg", -0.0}};
  ok.figures.sort_value = 1.0 / 3.0;
  ok.figures.unstable = true;
  ok.figures.unstable_since_s = 27.04;
  SloResult slo;
  slo.key = "ttft_p99";
  slo.value = std::numeric_limits<double>::infinity();
  slo.target = 2;
  slo.met = false;
  ok.figures.slo = {slo};
  SweepPointResult failed;
  failed.point = {{"max-num-seqs", "5"}};
  failed.dir_name = "4_max-num-seqs=5";
  failed.error = "boom, \"quoted\"\nnext line";
  r.points = {ok, failed};
  return r;
}

TEST(SweepShardRecord, ReadsBackToTheSameBits) {
  const SweepShardRecord r = sample_record();
  const SweepShardRecord back = parse_shard_record(format_shard_record(r), "x.json");
  EXPECT_EQ(back.shard.index, 1);
  EXPECT_EQ(back.shard.count, 3);
  EXPECT_EQ(back.args, r.args);
  EXPECT_EQ(back.grid_points, 5u);
  EXPECT_EQ(back.indices, r.indices);
  ASSERT_EQ(back.points.size(), 2u);
  const SweepPointFigures& f = back.points[0].figures;
  ASSERT_EQ(f.values.size(), r.points[0].figures.values.size());
  for (const auto& [key, value] : r.points[0].figures.values) {
    EXPECT_TRUE(same_bits(f.values.at(key), value)) << key;
  }
  EXPECT_TRUE(same_bits(f.sort_value, 1.0 / 3.0));
  EXPECT_TRUE(f.unstable);
  EXPECT_TRUE(same_bits(f.unstable_since_s, 27.04));
  ASSERT_EQ(f.slo.size(), 1u);
  EXPECT_EQ(f.slo[0].key, "ttft_p99");
  EXPECT_TRUE(std::isinf(f.slo[0].value));
  EXPECT_FALSE(f.slo[0].met);
  EXPECT_EQ(back.points[0].point[0].flag, "max-num-seqs");
  EXPECT_EQ(back.points[0].point[0].value, "2");
  EXPECT_TRUE(back.points[0].ok);
  EXPECT_FALSE(back.points[1].ok);
  EXPECT_EQ(back.points[1].error, r.points[1].error);
  EXPECT_EQ(back.points[1].dir_name, "4_max-num-seqs=5");
  // The same text again: nothing is lost or reordered.
  EXPECT_EQ(format_shard_record(back), format_shard_record(r));
}

// A point's --fault windows read back as the same windows (sweep.csv and sweep.json list them).
TEST(SweepShardRecord, KeepsThePointsFaultWindows) {
  SweepShardRecord r = sample_record();
  r.points[0].figures.faults = {parse_fault("http-5xx:12.5:0:1m30s"),
                                parse_fault("slow:0:2.5:500ms:2m")};
  const SweepShardRecord back = parse_shard_record(format_shard_record(r), "x.json");
  EXPECT_EQ(back.points[0].figures.faults, r.points[0].figures.faults);
  EXPECT_TRUE(back.points[1].figures.faults.empty());
  EXPECT_EQ(format_shard_record(sample_record()).find("faults"), std::string::npos);
}

TEST(SweepShardRecord, RefusesWhatIsNotARecordNamingTheFile) {
  const std::string good = format_shard_record(sample_record());
  struct Case {
    std::string text, message;
  };
  const Case cases[] = {
      {"", "DIR/shard-1-of-3.json: "},
      {"{\"format\": \"other\"}", "not a sweep shard record"},
      {"[1,2]", "not a sweep shard record"},
      {good.substr(0, good.size() / 2), "DIR/shard-1-of-3.json: "},
      {"{\"format\": \"llmsim-sweep-shard/1\", \"shard\": 0}", "DIR/shard-1-of-3.json: "},
  };
  for (const Case& c : cases) {
    try {
      parse_shard_record(c.text, "DIR/shard-1-of-3.json");
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace llm
