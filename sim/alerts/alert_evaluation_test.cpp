// Alert evaluation over range queries answered by the test: the queries asked (inlined
// expression, evaluation times, chunks), the labels of each alert, and Prometheus's JSON answers.
#include "sim/alerts/alert_evaluation.h"

#include <gtest/gtest.h>

#include "sim/alerts/testing/alert_times.h"

namespace llm {
namespace {

using testing::kS;
using testing::kStart;

PromRuleFile one_alert(int64_t interval_ns, int64_t for_ns) {
  return parse_rule_file(
      "groups:\n  - name: r\n    rules:\n      - record: job:up:sum\n        expr: sum(up)\n"
      "  - name: a\n" +
          std::string(interval_ns ? "    interval: " + std::to_string(interval_ns / kS) + "s\n"
                                  : "") +
          "    rules:\n      - alert: Down\n        expr: job:up:sum == 0\n        for: " +
          std::to_string(for_ns / kS) + "s\n        labels: {severity: page}\n",
      "t.yml");
}

struct Query {
  std::string expr;
  int64_t start, end, step;
};

TEST(AlertEvaluation, AsksOneRangeQueryAtTheGroupIntervalAndAppliesFor) {
  std::vector<Query> asked;
  auto query = [&](const std::string& e, int64_t s, int64_t end, int64_t step) {
    asked.push_back({e, s, end, step});
    // Present at 30 s .. 90 s (evaluations 2 to 6 at 15 s), with a __name__ that is dropped.
    RangeSeries r{{{"__name__", "x"}, {"job", "vllm"}}, {}};
    for (int64_t t = 30; t <= 90; t += 15) r.times_ms.push_back((kStart / kS + t) * 1000);
    return std::vector<RangeSeries>{r};
  };
  const auto out =
      evaluate_alert_rules(one_alert(15 * kS, 30 * kS), 60 * kS, kStart, kStart + 120 * kS, query);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].expr, "(sum(up)) == 0");
  EXPECT_EQ(asked[0].start, kStart);
  EXPECT_EQ(asked[0].end, kStart + 120 * kS);
  EXPECT_EQ(asked[0].step, 15 * kS);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].alert, "Down");
  EXPECT_EQ(out[0].group, "a");
  ASSERT_EQ(out[0].label_sets.size(), 1u);
  const PromLabels want = {{"alertname", "Down"}, {"job", "vllm"}, {"severity", "page"}};
  EXPECT_EQ(out[0].label_sets[0].labels, want);
  const AlertEpisode e{kStart + 30 * kS, kStart + 60 * kS, kStart + 105 * kS};
  ASSERT_EQ(out[0].label_sets[0].episodes.size(), 1u);
  EXPECT_EQ(out[0].label_sets[0].episodes[0], e);
  EXPECT_TRUE(out[0].ever_fired());
}

TEST(AlertEvaluation, GroupsWithoutIntervalUseTheDefaultAndLongRangesAreChunked) {
  std::vector<Query> asked;
  auto query = [&](const std::string& e, int64_t s, int64_t end, int64_t step) {
    asked.push_back({e, s, end, step});
    return std::vector<RangeSeries>{};
  };
  const int64_t steps = kMaxStepsPerQuery + 5;
  const auto out =
      evaluate_alert_rules(one_alert(0, 0), 10 * kS, kStart, kStart + (steps - 1) * 10 * kS, query);
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].step, 10 * kS);
  EXPECT_EQ(asked[0].end, kStart + (kMaxStepsPerQuery - 1) * 10 * kS);
  EXPECT_EQ(asked[1].start, kStart + kMaxStepsPerQuery * 10 * kS);
  EXPECT_EQ(asked[1].end, kStart + (steps - 1) * 10 * kS);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].label_sets.empty());
  EXPECT_FALSE(out[0].ever_fired());
}

TEST(AlertEvaluation, RefusesSamplesOffTheEvaluationGridAndDuplicateLabelSets) {
  auto off_grid = [&](const std::string&, int64_t, int64_t, int64_t) {
    return std::vector<RangeSeries>{{{{"job", "a"}}, {(kStart / kS) * 1000 + 7}}};
  };
  EXPECT_THROW(
      evaluate_alert_rules(one_alert(15 * kS, 0), 15 * kS, kStart, kStart + 60 * kS, off_grid),
      std::runtime_error);
  auto duplicate = [&](const std::string&, int64_t, int64_t, int64_t) {
    const int64_t t = (kStart / kS) * 1000;
    return std::vector<RangeSeries>{{{{"__name__", "a"}, {"job", "a"}}, {t}},
                                    {{{"__name__", "b"}, {"job", "a"}}, {t}}};
  };
  EXPECT_THROW(
      evaluate_alert_rules(one_alert(15 * kS, 0), 15 * kS, kStart, kStart + 60 * kS, duplicate),
      std::invalid_argument);
}

TEST(QueryRangeAnswer, ParsesMatricesAndReportsErrors) {
  const auto series = parse_query_range_answer(
      R"({"status":"success","data":{"resultType":"matrix","result":[)"
      R"({"metric":{"job":"a"},"values":[[1767225600,"1"],[1767225615.5,"NaN"]]}]}})");
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].labels.at("job"), "a");
  EXPECT_EQ(series[0].times_ms, (std::vector<int64_t>{1767225600000, 1767225615500}));
  try {
    parse_query_range_answer(
        R"({"status":"error","errorType":"bad_data","error":"parse error at char 4"})");
    ADD_FAILURE();
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "the query failed: bad_data: parse error at char 4");
  }
  EXPECT_THROW(parse_query_range_answer("not json"), std::runtime_error);
  EXPECT_THROW(parse_query_range_answer(R"({"status":"success","data":{"resultType":"vector"}})"),
               std::runtime_error);
}

}  // namespace
}  // namespace llm
