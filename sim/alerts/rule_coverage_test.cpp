// What a replay can tell of each rule: the selectors (recording rules inlined) that match no
// series, each looked up once, and how long a replay the rule needs; the repository's own rules
// on llmsim's series names; and the problem lines.
#include "sim/alerts/rule_coverage.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "sim/alerts/testing/alert_times.h"

namespace llm {
namespace {

using testing::kS;

const char* const kRules = R"(groups:
  - name: rec
    rules:
      - record: job:errors:ratio5m
        expr: sum(rate(errors_total[5m])) / sum(rate(requests_total[5m]))
  - name: g
    interval: 30s
    rules:
      - alert: Errors
        expr: job:errors:ratio5m > 0.1 and rate(requests_total[1h]) > 0
        for: 10m
      - alert: OldName
        expr: rate(vllm:num_preemptions[5m]) > 1 or vllm:gpu_cache_usage_perc > 0.9
      - alert: Fine
        expr: up == 0
        for: 1m
)";

TEST(RuleCoverage, UnmatchedSelectorsAndNeededLengthPerRule) {
  const PromRuleFile file = parse_rule_file(kRules, "r.yml");
  const std::set<std::string> present = {"errors_total", "requests_total", "up"};
  std::map<std::string, int> asked;
  const std::vector<RuleCoverage> c =
      rule_coverage(file, 15 * kS, [&](const std::string& selector) {
        ++asked[selector];
        return present.count(selector) > 0;
      });
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].alert, "Errors");
  EXPECT_TRUE(c[0].unmatched.empty());
  EXPECT_EQ(c[0].for_ns, 600 * kS);
  EXPECT_EQ(c[0].interval_ns, 30 * kS);  // the group's
  EXPECT_EQ(c[0].window_ns, 3600 * kS);  // requests_total[1h], longer than the inlined [5m]
  EXPECT_EQ(c[0].needed_ns(), (600 + 30 + 3600) * kS);
  EXPECT_EQ(c[1].alert, "OldName");
  EXPECT_EQ(c[1].unmatched,
            (std::vector<std::string>{"vllm:num_preemptions", "vllm:gpu_cache_usage_perc"}));
  EXPECT_EQ(c[1].needed_ns(), (0 + 30 + 300) * kS);
  EXPECT_EQ(c[2].alert, "Fine");
  EXPECT_TRUE(c[2].unmatched.empty());
  EXPECT_EQ(c[2].needed_ns(), (60 + 30) * kS);
  // Each distinct selector was looked up once.
  for (const auto& [selector, n] : asked) EXPECT_EQ(n, 1) << selector;
  EXPECT_EQ(asked.size(), 5u);
}

TEST(RuleCoverage, ProblemsSayWhatIsMissingAndHowLongTheReplayMustBe) {
  RuleCoverage c;
  c.alert = "A";
  c.unmatched = {"vllm:num_preemptions"};
  c.for_ns = 300 * kS;
  c.interval_ns = 15 * kS;
  c.window_ns = 300 * kS;
  const std::vector<std::string> short_replay = coverage_problems(c, 30 * kS);
  ASSERT_EQ(short_replay.size(), 2u);
  EXPECT_EQ(short_replay[0],
            "selector vllm:num_preemptions matches no series of the replay: the rule cannot see "
            "what it is written for, and its quiet proves nothing");
  EXPECT_EQ(short_replay[1],
            "the replay (30s) is shorter than the 10m15s this rule needs to mean something (for "
            "5m + interval 15s + window 5m)");
  // Exactly long enough: only the selector.
  EXPECT_EQ(coverage_problems(c, 615 * kS).size(), 1u);
  c.unmatched.clear();
  EXPECT_TRUE(coverage_problems(c, 615 * kS).empty());
  EXPECT_EQ(coverage_problems(c, 614 * kS).size(), 1u);
}

TEST(RuleCoverage, TheRepositorysRulesSeeLlmsimsSeriesNames) {
  // The names llmsim's export has (the vLLM families, up and the HTTP metrics): every selector of
  // monitoring/prometheus-rules.yml names one of them.
  const std::set<std::string> names = {"up",
                                       "http_requests_total",
                                       "vllm:num_requests_waiting",
                                       "vllm:kv_cache_usage_perc",
                                       "vllm:num_preemptions_total",
                                       "vllm:time_to_first_token_seconds_bucket",
                                       "vllm:time_to_first_token_seconds_count",
                                       "vllm:request_success_total"};
  const PromRuleFile file = read_rule_file(LLM_SOURCE_DIR "/monitoring/prometheus-rules.yml");
  std::set<std::string> seen;
  const std::vector<RuleCoverage> c =
      rule_coverage(file, 15 * kS, [&](const std::string& selector) {
        const std::string name = selector.substr(0, selector.find('{'));
        seen.insert(name);
        return names.count(name) > 0;
      });
  ASSERT_EQ(c.size(), 9u);
  for (const RuleCoverage& r : c) EXPECT_TRUE(r.unmatched.empty()) << r.alert;
  EXPECT_EQ(seen, names);
  // The slow burn-rate alert reads six hours back.
  EXPECT_EQ(c[7].alert, "VLLMTTFTErrorBudgetBurnSlow");
  EXPECT_EQ(c[7].needed_ns(), (300 + 15 + 6 * 3600) * kS);
}

}  // namespace
}  // namespace llm
