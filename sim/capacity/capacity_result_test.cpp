// Tests for capacity_result.h on hand-built results: the answer, the point one engine below it,
// the sustained scale and the signals' engines are derived once, and the text and the JSON both
// show them (and leave out a what-if that cannot run).
#include "sim/capacity/capacity_result.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

// A point whose only SLO, ttft_p99 <= 1 s, is met or missed.
CapacityPoint point(bool met) {
  CapacityPoint p;
  SloResult r;
  r.key = "ttft_p99";
  r.value = met ? 0.5 : 2.0;
  r.target = 1.0;
  r.met = met;
  p.slo.push_back(r);
  p.met = met;
  return p;
}

// The engine search met the SLOs from `answer` engines on (none: missed up to 4); the scale
// search missed from step `misses_at` on (none: met up to the bound).
CapacityResult result(std::optional<int64_t> answer, std::optional<int64_t> misses_at) {
  CapacityResult r;
  r.trace_path = "t.json";
  r.num_requests = 10;
  r.slo.push_back({"ttft_p99", 1.0, "1s"});
  r.routing_policy = "round-robin";
  r.max_engines = 4;
  r.candidates.resize(1);
  CapacitySearch& engines = r.candidates[0].engines;
  for (int64_t n = 1; n <= 4; ++n) {
    const bool met = answer && n >= *answer;
    engines.points[n] = point(met);
    engines.outcome.evaluated.push_back({n, met});
  }
  engines.outcome.first_true = answer;
  engines.outcome.true_at_min = answer == 1;
  r.best = answer ? 0 : 1;
  r.scale.outcome.first_true = misses_at;
  r.scale.points[0] = point(true);
  return r;
}

TEST(CapacityResult, TheAnswerAndTheStepBelowAreInTheTextAndTheJson) {
  const CapacityResult r = result(3, 5);
  EXPECT_EQ(r.engines(), 3);
  EXPECT_EQ(r.at_answer(), &r.candidates[0].engines.points.at(3));
  EXPECT_EQ(r.below_answer(), &r.candidates[0].engines.points.at(2));
  EXPECT_EQ(r.signal_engines(), 2);
  ASSERT_TRUE(r.sustained_scale());
  EXPECT_DOUBLE_EQ(*r.sustained_scale(), scale_at(1.0, 4));
  const std::string text = format_capacity(r);
  EXPECT_NE(text.find("engines: 3 (data parallel"), std::string::npos) << text;
  EXPECT_NE(text.find("one step below, at 2 engine(s):\n"), std::string::npos) << text;
  EXPECT_NE(text.find("one engine sustains " + capacity_number(scale_at(1.0, 4)) + "x"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("what-ifs replayed with 2 engine(s):\n"), std::string::npos) << text;
  const nlohmann::ordered_json j = capacity_json(r);
  EXPECT_EQ(j["engines"], 3);
  EXPECT_EQ(j["slo_at_answer"]["ttft_p99"]["met"], true);
  EXPECT_EQ(j["slo_below_answer"]["ttft_p99"]["met"], false);
  EXPECT_DOUBLE_EQ(j["one_engine_max_arrival_rate_scale"].get<double>(), scale_at(1.0, 4));
  EXPECT_EQ(j["signals"]["engines"], 2);
  EXPECT_EQ(j["replayed"].size(), 4u);
}

TEST(CapacityResult, NoAnswerShowsMaxEnginesInBoth) {
  const CapacityResult r = result(std::nullopt, std::nullopt);
  EXPECT_FALSE(r.engines());
  EXPECT_EQ(r.below_answer(), &r.candidates[0].engines.points.at(4));
  EXPECT_EQ(r.signal_engines(), 4);
  EXPECT_DOUBLE_EQ(*r.sustained_scale(), scale_at(1.0, kScaleSteps));  // the search's bound
  const std::string text = format_capacity(r);
  EXPECT_NE(text.find("engines: none: 4 engines (--max-engines) still miss the SLOs\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(the search's bound)"), std::string::npos) << text;
  const nlohmann::ordered_json j = capacity_json(r);
  EXPECT_TRUE(j["engines"].is_null());
  EXPECT_TRUE(j["at_answer"].is_null());
  EXPECT_EQ(j["slo_below_answer"]["ttft_p99"]["met"], false);
  EXPECT_EQ(j["signals"]["engines"], 4);
}

TEST(CapacityResult, OneEngineMissingAtTheSmallestLoadHasNoSustainedScale) {
  CapacityResult r = result(1, -kScaleSteps);
  r.scale.outcome.true_at_min = true;
  EXPECT_FALSE(r.sustained_scale());
  EXPECT_FALSE(r.below_answer());
  EXPECT_EQ(r.signal_engines(), 1);
  const std::string text = format_capacity(r);
  EXPECT_NE(text.find("one engine: misses the SLOs even at"), std::string::npos) << text;
  EXPECT_NE(text.find("one step below: none (one engine is the fewest)\n"), std::string::npos)
      << text;
  EXPECT_TRUE(capacity_json(r)["one_engine_max_arrival_rate_scale"].is_null());
}

TEST(CapacityResult, AWhatIfThatCannotRunIsNamedInTheTextAndLeftOutOfTheJson) {
  CapacityResult r = result(2, 5);
  r.what_ifs.resize(2);
  r.what_ifs[0].flag = "kv-cache-dtype";
  r.what_ifs[0].value = "fp8";
  r.what_ifs[0].error = "the model does not fit";
  r.what_ifs[1].flag = "gpu-memory-utilization";
  r.what_ifs[1].value = "0.97";
  r.what_ifs[1].point = point(true);
  const std::string text = format_capacity(r);
  EXPECT_NE(text.find("  --kv-cache-dtype fp8: cannot run: the model does not fit\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  --gpu-memory-utilization 0.97: "), std::string::npos) << text;
  const nlohmann::ordered_json j = capacity_json(r);
  ASSERT_EQ(j["what_ifs"].size(), 1u);
  EXPECT_EQ(j["what_ifs"][0]["flag"], "gpu-memory-utilization");
  EXPECT_EQ(j["what_ifs"][0]["engines"], 1);
}

TEST(CapacityResult, TheAnswerIsGivenInGpusGpuHoursAndCost) {
  CapacityResult r = result(3, 5);
  r.tensor_parallel = 2;
  r.candidates[0].engines.points.at(3).summary.duration_s = 1800;  // half an hour replayed
  EXPECT_EQ(r.gpus(), 6);
  EXPECT_DOUBLE_EQ(*r.gpu_hours(), 3.0);
  EXPECT_FALSE(r.cost());  // no --gpu-hour-cost
  r.gpu_hour_cost = 2.5;
  EXPECT_DOUBLE_EQ(*r.cost(), 7.5);
  const std::string text = format_capacity(r);
  EXPECT_NE(text.find("gpus: 6 (3 engine(s) x tensor parallel 2); 3 GPU-hours over the 0.5 h "
                      "replayed; cost 7.5 at 2.5 per GPU-hour\n"),
            std::string::npos)
      << text;
  const nlohmann::ordered_json j = capacity_json(r);
  EXPECT_EQ(j["gpus"], 6);
  EXPECT_DOUBLE_EQ(j["gpu_hours"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["cost"].get<double>(), 7.5);
  const nlohmann::ordered_json none = capacity_json(result(std::nullopt, 5));
  EXPECT_TRUE(none["gpus"].is_null());
  EXPECT_TRUE(none["cost"].is_null());
}

TEST(CapacityResult, TheSustainedLoadIsSaidInRequestsPerSecondAndAgainstTheAskedScale) {
  CapacityResult r = result(1, 33);  // sustains scale_at(base, 32) = 2x the base
  r.trace_rate_per_s = 4;
  r.base_scale = 10;
  const std::string text = format_capacity(r);
  EXPECT_NE(text.find("one engine sustains 20x the trace's arrival rate"), std::string::npos)
      << text;
  EXPECT_NE(text.find("  that is 80 requests/s, 2x the load asked for (--arrival-rate-scale 10: "
                      "40 requests/s)\n"),
            std::string::npos)
      << text;
  EXPECT_DOUBLE_EQ(capacity_json(r)["one_engine_requests_per_s"].get<double>(), 80);
}

TEST(CapacityResult, LatencyRisingWithMoreEnginesIsShownEvenWhenTheVerdictIsMonotone) {
  CapacityResult r = result(2, 5);
  r.candidates[0].engines.points.at(3).slo[0].value = 0.4;
  r.candidates[0].engines.points.at(4).slo[0].value = 0.9;  // still met, but worse than at 3
  const std::vector<FigureReversal> reversals = figure_reversals(r.candidates[0].engines.points);
  ASSERT_EQ(reversals.size(), 1u);
  EXPECT_EQ(reversals[0].from, 3);
  EXPECT_EQ(reversals[0].to, 4);
  const std::string text = format_capacity(r);
  EXPECT_NE(text.find("monotone: yes"), std::string::npos) << text;
  EXPECT_NE(
      text.find("figure not monotone: ttft_p99 400 ms at 3 engine(s), 900 ms at 4 (worse with "
                "more engines)\n"),
      std::string::npos)
      << text;
  EXPECT_EQ(capacity_json(r)["figure_reversals"].size(), 1u);
  EXPECT_TRUE(figure_reversals(result(2, 5).candidates[0].engines.points).empty());
  // Within 2% of the fewer engines' value is noise, not a reversal.
  r.candidates[0].engines.points.at(4).slo[0].value = 0.407;
  EXPECT_TRUE(figure_reversals(r.candidates[0].engines.points).empty());
}

TEST(CapacityResult, SettingsAreDescribedAsFlags) {
  EXPECT_EQ(describe_settings({}), "(the given engine arguments)");
  EXPECT_EQ(describe_settings({{"max-num-seqs", "64"}, {"kv-cache-dtype", "fp8"}}),
            "--max-num-seqs 64 --kv-cache-dtype fp8");
}

}  // namespace
}  // namespace llm
