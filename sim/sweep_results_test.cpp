// Tests for a sweep's ranking and outputs (sim/sweep_results.h): best first by the sort figure in
// its direction, failed points last, and the table, CSV and JSON forms.
#include "sim/sweep_results.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/summary_figures.h"

namespace llm {
namespace {

SweepPointResult ran(const std::string& value, double ttft_p99, double throughput) {
  SweepPointResult r;
  r.point = {{"max-num-seqs", value}};
  r.dir_name = "p" + value;
  r.ok = true;
  r.summary.ttft.p99 = ttft_p99;
  r.summary.output_tokens_per_s = throughput;
  return r;
}

SweepPointResult failed(const std::string& value, const std::string& error) {
  SweepPointResult r;
  r.point = {{"max-num-seqs", value}};
  r.dir_name = "p" + value;
  r.error = error;
  return r;
}

SweepOutcome outcome_of(std::vector<SweepPointResult> points, const std::string& sort_by) {
  SweepOutcome o;
  o.trace = "trace.json";
  o.sort_by = sort_by;
  o.axes = {{"max-num-seqs=...", "max-num-seqs", {}}};
  for (const auto& p : points) o.axes[0].values.push_back(p.point[0].value);
  o.points = std::move(points);
  return o;
}

TEST(SweepRanking, LowerIsBetterAscendsHigherIsBetterDescendsFailedLast) {
  const std::vector<SweepPointResult> points = {ran("1", 0.5, 10), failed("2", "boom"),
                                                ran("3", 0.1, 30), ran("4", 0.3, 20),
                                                ran("5", 0.1, 5)};
  EXPECT_EQ(sweep_ranking(outcome_of(points, "ttft_p99")),
            (std::vector<size_t>{2, 4, 3, 0, 1}));  // the 0.1 tie keeps grid order
  EXPECT_EQ(sweep_ranking(outcome_of(points, "output_tokens_per_s")),
            (std::vector<size_t>{2, 3, 0, 4, 1}));
  EXPECT_EQ(num_failed_points(outcome_of(points, "ttft_p99")), 1);
}

TEST(SweepTable, ShowsRankValuesFiguresAndFailures) {
  const std::string table = format_sweep_table(
      outcome_of({ran("64", 0.25, 100), failed("8", "--max-num-seqs: nope")}, "ttft_p99"));
  EXPECT_NE(table.find("2 points, by ttft_p99 (lowest first)"), std::string::npos) << table;
  EXPECT_NE(table.find("rank  max-num-seqs  ttft_p99"), std::string::npos) << table;
  EXPECT_NE(table.find("1     64            0.25"), std::string::npos) << table;
  EXPECT_NE(table.find("2     8             FAILED: --max-num-seqs: nope"), std::string::npos)
      << table;
  EXPECT_NE(table.find("1 of the points failed"), std::string::npos) << table;
}

TEST(SweepCsv, HasEveryFigureAndQuotesErrors) {
  const std::string csv = format_sweep_csv(
      outcome_of({failed("8", "bad, \"really\""), ran("64", 0.25, 100)}, "ttft_p99"));
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_EQ(header.rfind("rank,dir,max-num-seqs,status,error,", 0), 0u) << header;
  for (const std::string& key : summary_figure_keys()) {
    EXPECT_NE(header.find("," + key), std::string::npos) << key;
  }
  EXPECT_NE(csv.find("\n1,p64,64,ok,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n2,p8,8,failed,\"bad, \"\"really\"\"\","), std::string::npos) << csv;
}

TEST(SweepJson, PointsInRankOrderWithSettingsAndFigures) {
  const auto doc = nlohmann::json::parse(format_sweep_json(
      outcome_of({ran("8", 0.5, 10), ran("64", 0.25, 100), failed("4", "boom")}, "ttft_p99")));
  EXPECT_EQ(doc["sort"], "ttft_p99");
  EXPECT_EQ(doc["lower_is_better"], true);
  EXPECT_EQ(doc["axes"][0]["flag"], "max-num-seqs");
  ASSERT_EQ(doc["points"].size(), 3u);
  EXPECT_EQ(doc["points"][0]["settings"]["max-num-seqs"], "64");
  EXPECT_EQ(doc["points"][0]["rank"], 1);
  EXPECT_DOUBLE_EQ(doc["points"][0]["figures"]["ttft_p99"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(doc["points"][1]["figures"]["output_tokens_per_s"].get<double>(), 10);
  EXPECT_EQ(doc["points"][2]["status"], "failed");
  EXPECT_EQ(doc["points"][2]["error"], "boom");
  EXPECT_FALSE(doc["points"][2].contains("figures"));
}

RC_GTEST_PROP(SweepRanking, IsAPermutationBestFirst, ()) {
  const auto values = *rc::gen::container<std::vector<int>>(rc::gen::inRange(-1, 6));
  const std::string key = *rc::gen::element<std::string>("ttft_p99", "output_tokens_per_s");
  std::vector<SweepPointResult> points;
  for (size_t i = 0; i < values.size(); ++i) {
    // -1 marks a failed point.
    points.push_back(values[i] < 0 ? failed(std::to_string(i), "x")
                                   : ran(std::to_string(i), values[i], values[i]));
  }
  const SweepOutcome o = outcome_of(points, key);
  const std::vector<size_t> ranking = sweep_ranking(o);
  RC_ASSERT(ranking.size() == points.size());
  std::vector<bool> seen(points.size(), false);
  for (size_t i : ranking) {
    RC_ASSERT(i < points.size() && !seen[i]);
    seen[i] = true;
  }
  for (size_t r = 1; r < ranking.size(); ++r) {
    const SweepPointResult& a = o.points[ranking[r - 1]];
    const SweepPointResult& b = o.points[ranking[r]];
    RC_ASSERT(a.ok || !b.ok);  // failed points only after every point that ran
    if (a.ok && b.ok) {
      const double x = *summary_figure(a.summary, key), y = *summary_figure(b.summary, key);
      RC_ASSERT((lower_is_better(key) ? x <= y : x >= y));
      if (x == y) RC_ASSERT(ranking[r - 1] < ranking[r]);
    } else if (!a.ok && !b.ok) {
      RC_ASSERT(ranking[r - 1] < ranking[r]);
    }
  }
}

}  // namespace
}  // namespace llm
