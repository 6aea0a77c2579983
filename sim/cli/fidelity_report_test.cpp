// The fidelity table's arithmetic: mean, spread, signed error and the verdict rules (an error
// inside the real runs' spread is not claimed as a pass); and one profile's result written as text
// and as JSON from the same figures.
#include "sim/cli/fidelity_report.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llm {
namespace {

TEST(FidelityRow, ErrorIsSignedAgainstTheMeanOfTheRealRuns) {
  FidelityRow r{"TTFT p50 (ms)", {100, 110}, 115.5, 0.10, {}};
  EXPECT_DOUBLE_EQ(r.real_mean(), 105);
  EXPECT_DOUBLE_EQ(r.spread(), 10.0 / 105);
  EXPECT_DOUBLE_EQ(r.error(), 0.1);
  EXPECT_EQ(r.verdict(), "pass");  // a 10% error is outside the 9.5% spread, at the 10% goal
}

TEST(FidelityRow, ThePredictionsSpreadIsOverItsReplays) {
  FidelityRow r{"TTFT p90 (ms)", {100, 110}, 0, 0.10, {90, 100, 110}};
  EXPECT_DOUBLE_EQ(r.predicted_spread(), 20.0 / 100);
  EXPECT_DOUBLE_EQ(mean_of_runs(r.predicted_runs), 100);
  EXPECT_DOUBLE_EQ(spread_of_runs({50}), 0);  // one replay: no spread
  EXPECT_DOUBLE_EQ(mean_of_runs({}), 0);
}

TEST(FidelityRow, VerdictsSeparateNoiseFromPassesAndMisses) {
  // Inside the spread: the runs themselves differ by more than the error.
  EXPECT_EQ((FidelityRow{"x", {100, 120}, 104, 0.10, {}}).verdict(), "inside spread");
  // Outside the spread and inside the goal.
  EXPECT_EQ((FidelityRow{"x", {100, 101}, 108, 0.10, {}}).verdict(), "pass");
  // Outside both.
  EXPECT_EQ((FidelityRow{"x", {100, 101}, 150, 0.10, {}}).verdict(), "MISS");
  EXPECT_EQ((FidelityRow{"x", {100, 101}, 50, 0.20, {}}).verdict(), "MISS");
  // One run has no spread.
  EXPECT_EQ((FidelityRow{"x", {100}, 105, 0.10, {}}).spread(), 0);
  EXPECT_EQ((FidelityRow{"x", {100}, 105, 0.10, {}}).verdict(), "pass");
}

TEST(FidelityRow, TheMedianErrorIsOverTheWholeTable) {
  const std::vector<FidelityRow> rows = {
      {"a", {100}, 101, 0.1, {}}, {"b", {100}, 90, 0.1, {}}, {"c", {100}, 130, 0.1, {}}};
  EXPECT_DOUBLE_EQ(median_abs_error(rows), 0.10);
  const std::string table = format_fidelity_table(rows);
  EXPECT_NE(table.find("median |error| over the table: 10.0%"), std::string::npos) << table;
  EXPECT_NE(table.find("+30.0%"), std::string::npos) << table;
}

FidelityResult one_profile() {
  FidelityResult r;
  r.trace = "chat.json";
  r.num_requests = 40;
  r.profile = "p.json";
  r.url = "http://127.0.0.1:8000";
  r.real_runs = 2;
  r.sim_runs = 5;
  r.rows = {{"TTFT p50 (ms)", {100, 102}, 110, 0.10, {108, 112}}};
  r.real_preemptions = 1.5;
  r.predicted_preemptions = 2;
  return r;
}

TEST(FidelityResult, TextAndJsonShowTheSameFigures) {
  const FidelityResult r = one_profile();
  const std::string text = format_fidelity(r);
  EXPECT_EQ(text.rfind("fidelity of p.json against http://127.0.0.1:8000 on chat.json (40 "
                       "requests, 2 real runs, 5 replays)\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find(format_fidelity_table(r.rows)), std::string::npos) << text;
  EXPECT_NE(text.find("preemptions: real 1.5 per run (vllm:num_preemptions_total), predicted 2 "
                      "per replay\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("the server's"), std::string::npos) << text;
  const nlohmann::ordered_json j = fidelity_json(r);
  EXPECT_EQ(j["profile"], "p.json");
  EXPECT_EQ(j["real_runs"], 2);
  EXPECT_DOUBLE_EQ(j["real_preemptions_per_run"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(j["median_abs_error"].get<double>(), median_abs_error(r.rows));
  EXPECT_EQ(j["rows"][0]["verdict"], r.rows[0].verdict());
  EXPECT_FALSE(j.contains("server_steps"));
}

TEST(FidelityResult, TheCostsAsRunAreInBothWhenTheServersStepsWereRead) {
  FidelityResult r = one_profile();
  FidelityAsRun s;
  s.steps = 300;
  s.took_s = 2;
  s.execute_s = 1.5;
  s.host_gaps_s = 0.5;
  s.gap_limit_ms = 5;
  s.priced_s = 1.8;
  s.error = -0.1;
  s.fit.steps = 290;
  s.fit.median_abs_error = 0.02;
  s.fit.p90_abs_error = 0.08;
  s.rows = {{"TTFT p50 (ms)", {100, 102}, 103, 0.10, {103}}};
  r.as_run = s;
  const std::string text = format_fidelity(r);
  EXPECT_NE(text.find("the server's 300 steps during the real runs took 2 s (1.5 s in execute(), "
                      "0.5 s of host time in gaps under 5 ms); the profile prices them at 1.8 s "
                      "(-10.0%)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("with a profile fitted to those steps (|error| median 2.0%, p90 8.0%): "
                      "median |error| over the table 2.0% (TTFT p50 +2.0%)\n"),
            std::string::npos)
      << text;
  const nlohmann::ordered_json j = fidelity_json(r);
  EXPECT_EQ(j["server_steps"]["steps"], 300);
  EXPECT_DOUBLE_EQ(j["server_steps"]["error"].get<double>(), -0.1);
  EXPECT_EQ(j["step_costs_as_run"]["fit"]["steps"], 290);
  EXPECT_EQ(j["step_costs_as_run"]["fit"]["scatter"], false);
  EXPECT_DOUBLE_EQ(j["step_costs_as_run"]["median_abs_error"].get<double>(),
                   median_abs_error(s.rows));
}

}  // namespace
}  // namespace llm
