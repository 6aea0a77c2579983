// Tests for a sweep's ranking and outputs (sim/sweep/sweep_results.h): best first by the sort
// figure in its direction, failed points last, and the table, CSV and JSON forms.
#include "sim/sweep/sweep_results.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/replay/latency_samples.h"
#include "sim/replay/summary_figures.h"

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
  record_sweep_figures(o);
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

TEST(SweepTable, AnUnstablePointIsSaidOutLoudInTheTableAndTheJson) {
  SweepPointResult overloaded = ran("256", 9.5, 100);
  overloaded.summary.overload.unstable = true;
  overloaded.summary.overload.since_s = 27.04;
  const SweepOutcome o = outcome_of({ran("64", 0.25, 100), overloaded}, "ttft_p99");
  const std::string table = format_sweep_table(o);
  EXPECT_NE(table.find("max-num-seqs  overload"), std::string::npos) << table;
  EXPECT_NE(table.find("UNSTABLE@27.0s"), std::string::npos) << table;
  EXPECT_NE(table.find("stable"), std::string::npos) << table;
  const nlohmann::json j = nlohmann::json::parse(format_sweep_json(o));
  EXPECT_EQ(j["points"][1]["overload"]["unstable"], true);
  EXPECT_DOUBLE_EQ(j["points"][1]["overload"]["since_s"].get<double>(), 27.04);
  EXPECT_TRUE(j["points"][0]["overload"]["since_s"].is_null());
  // No column while every point was stable.
  EXPECT_EQ(format_sweep_table(outcome_of({ran("64", 0.25, 100)}, "ttft_p99")).find("overload"),
            std::string::npos);
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

TEST(SweepSlo, PointsMeetingEveryTargetRankFirstAndAreMarked) {
  // By ttft_p99 alone "1" (0.1 s) is best, but its throughput misses the SLO.
  SweepOutcome o = outcome_of({ran("1", 0.1, 5), ran("2", 0.3, 50), ran("3", 0.2, 40),
                               failed("4", "boom"), ran("5", 0.9, 60)},
                              "ttft_p99");
  o.slo = parse_slo("ttft_p99=500ms,output_tokens_per_s=30");
  record_sweep_figures(o);
  EXPECT_TRUE(meets_slo(o, o.points[1]));
  EXPECT_FALSE(meets_slo(o, o.points[0]));  // throughput 5 < 30
  EXPECT_FALSE(meets_slo(o, o.points[3]));  // failed
  EXPECT_FALSE(meets_slo(o, o.points[4]));  // 0.9 s > 500 ms
  EXPECT_EQ(sweep_ranking(o), (std::vector<size_t>{2, 1, 0, 4, 3}));

  const std::string table = format_sweep_table(o);
  EXPECT_NE(table.find("rank  max-num-seqs  slo"), std::string::npos) << table;
  EXPECT_NE(table.find("1     3             met"), std::string::npos) << table;
  EXPECT_NE(table.find("3     1             MISSED"), std::string::npos) << table;

  const std::string csv = format_sweep_csv(o);
  EXPECT_NE(csv.find("status,error,slo,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("1,p3,3,ok,,met,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("3,p1,1,ok,,missed,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("5,p4,4,failed,boom,,"), std::string::npos) << csv;

  const auto json = nlohmann::json::parse(format_sweep_json(o));
  ASSERT_EQ(json["slo"].size(), 2u);
  EXPECT_EQ(json["slo"][0]["key"], "ttft_p99");
  EXPECT_DOUBLE_EQ(json["slo"][0]["target"].get<double>(), 0.5);
  const auto& first = json["points"][0];
  EXPECT_EQ(first["dir"], "p3");
  ASSERT_EQ(first["slo"].size(), 2u);
  EXPECT_TRUE(first["slo"][1]["met"].get<bool>());
  EXPECT_DOUBLE_EQ(first["slo"][1]["value"].get<double>(), 40);
  EXPECT_FALSE(json["points"][2]["slo"][1]["met"].get<bool>());
}

TEST(SweepSlo, WithoutTargetsNothingChanges) {
  const SweepOutcome o = outcome_of({ran("1", 0.1, 5), ran("2", 0.3, 50)}, "ttft_p99");
  EXPECT_EQ(format_sweep_table(o).find("slo"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(format_sweep_json(o)).count("slo"), 0u);
  EXPECT_NE(format_sweep_csv(o).find("1,p1,1,ok,,,"), std::string::npos);
}

// A point whose summary keeps its samples (TTFT 1..8 s) and per-sequence outcomes: the figures
// that are read from them (any percentile, goodput, attainment).
SweepPointResult with_samples(const std::string& value, double duration_s) {
  SweepPointResult r = ran(value, 8, 100);
  auto samples = std::make_shared<LatencySamples>();
  for (int i = 1; i <= 8; ++i) {
    samples->sorted["ttft"].push_back(i);
    samples->outcomes.push_back({true, static_cast<double>(i), 0.01, i + 1.0});
  }
  r.summary.samples = samples;
  r.summary.duration_s = duration_s;
  return r;
}

TEST(SweepCsv, MetricPercentilesAddTheirColumnsAndTheJsonItsFigures) {
  SweepOutcome o = outcome_of({with_samples("64", 10)}, "ttft_p99");
  const std::string plain = format_sweep_csv(o);
  EXPECT_EQ(plain.find("ttft_p25"), std::string::npos) << plain;
  o.metric_percentiles = {25, 99, 75};  // 99 is among the fixed columns already
  record_sweep_figures(o);
  const std::string csv = format_sweep_csv(o);
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",ttft_p99.9,ttft_p25,ttft_p75,ttft_max,"), std::string::npos) << header;
  EXPECT_NE(header.find(",e2e_p99.9,e2e_p25,e2e_p75,e2e_max,"), std::string::npos) << header;
  EXPECT_EQ(header.find(",ttft_p99,"), header.rfind(",ttft_p99,")) << "p99 twice: " << header;
  // Every column but the extra ones is the plain CSV's, in the same order.
  const std::string plain_header = plain.substr(0, plain.find('\n'));
  std::string without_extra = header;
  for (const char* d :
       {"ttft", "request_ttft", "queue", "prefill", "decode", "e2e", "itl", "tpot"}) {
    for (const char* p : {"_p25", "_p75"}) {
      const std::string col = std::string(",") + d + p;
      const size_t at = without_extra.find(col + ",");
      if (at != std::string::npos) without_extra.erase(at, col.size());
    }
  }
  EXPECT_EQ(without_extra, plain_header);
  const double p25 = latency_percentile(*o.points[0].summary.samples, "ttft", 25, false);
  const auto doc = nlohmann::json::parse(format_sweep_json(o));
  EXPECT_EQ(doc["metric_percentiles"], nlohmann::json::parse("[25, 99, 75]"));
  EXPECT_DOUBLE_EQ(doc["points"][0]["figures"]["ttft_p25"].get<double>(), p25);
  EXPECT_NE(csv.find("," + json_number(p25) + ","), std::string::npos) << csv;
  EXPECT_EQ(
      nlohmann::json::parse(format_sweep_json(outcome_of({with_samples("64", 10)}, "ttft_p99")))
          .count("metric_percentiles"),
      0u);
}

TEST(SweepTable, PerRequestTargetsAddGoodputAndAttainmentColumns) {
  SweepOutcome o = outcome_of({with_samples("64", 4), with_samples("8", 2)}, "ttft_p99");
  EXPECT_EQ(format_sweep_table(o).find("goodput"), std::string::npos);
  o.slo = parse_slo("ttft=4s,attainment>=0.25");  // 4 of the 8 sequences have TTFT <= 4 s
  for (SweepPointResult& p : o.points) p.summary.goodput = goodput_targets(o.slo);
  record_sweep_figures(o);
  const std::string table = format_sweep_table(o);
  EXPECT_NE(table.find("; goodput in good requests/s (ttft <= 4 s per request)"), std::string::npos)
      << table;
  EXPECT_NE(table.find("output_tokens_per_s  goodput  attainment\n"), std::string::npos) << table;
  EXPECT_NE(table.find("  2        0.5\n"), std::string::npos) << table;  // 4 good over 2 s
  EXPECT_NE(table.find("  1        0.5\n"), std::string::npos) << table;  // 4 good over 4 s
  // Figure targets alone (no per-request ones): no goodput column.
  o.slo = parse_slo("ttft_p99=4s");
  EXPECT_EQ(format_sweep_table(o).find("goodput"), std::string::npos);
}

TEST(SweepCsv, TheFaultsThatRanAreListedOnlyWhenThereWereAny) {
  SweepOutcome o = outcome_of({with_samples("64", 90), failed("8", "boom")}, "ttft_p99");
  const std::string plain = format_sweep_csv(o);
  EXPECT_EQ(plain.find("faults"), std::string::npos) << plain;
  EXPECT_EQ(format_sweep_json(o).find("faults"), std::string::npos);
  // The second window starts after the 90 s run ended: it never ran.
  o.points[0].summary.faults = {parse_fault("http-5xx:50:0:1m"),
                                parse_fault("engine-down:0:2m:3m")};
  record_sweep_figures(o);
  const std::string csv = format_sweep_csv(o);
  EXPECT_NE(csv.find(",status,error,slo,faults,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n1,p64,64,ok,,,http-5xx:50:0s:1m,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\n2,p8,8,failed,boom,,,"), std::string::npos) << csv;
  const auto doc = nlohmann::json::parse(format_sweep_json(o));
  const auto& faults = doc["points"][0]["faults"];
  ASSERT_EQ(faults.size(), 2u);
  EXPECT_EQ(faults[0]["spec"], "http-5xx:50:0s:1m");
  EXPECT_DOUBLE_EQ(faults[0]["active_s"].get<double>(), 60);
  EXPECT_EQ(faults[0]["ran"], true);
  EXPECT_EQ(faults[1]["spec"], "engine-down:0:2m:3m");
  EXPECT_DOUBLE_EQ(faults[1]["from_s"].get<double>(), 120);
  EXPECT_EQ(faults[1]["ran"], false);
}

}  // namespace
}  // namespace llm
