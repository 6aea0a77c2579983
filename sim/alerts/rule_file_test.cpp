// Rule files: what is read from each field, the repository's own rules, and FILE:LINE errors.
#include "sim/alerts/rule_file.h"

#include <gtest/gtest.h>

#include "sim/alerts/testing/alert_times.h"

namespace llm {
namespace {

using testing::kS;

TEST(RuleFile, ReadsGroupsAndRules) {
  const PromRuleFile f = parse_rule_file(R"(groups:
  - name: g
    interval: 30s
    rules:
      - record: job:up:sum
        expr: sum by (job) (up)
        labels:
          team: infra
      - alert: Down
        expr: |
          job:up:sum
          == 0
        for: 1h30m
        keep_firing_for: 2m
        labels: {severity: page}
        annotations:
          summary: "{{ $labels.job }} is down"
  - name: h
    rules: []
)",
                                         "r.yml");
  ASSERT_EQ(f.groups.size(), 2u);
  const PromRuleGroup& g = f.groups[0];
  EXPECT_EQ(g.name, "g");
  EXPECT_EQ(g.interval_ns, 30 * kS);
  ASSERT_EQ(g.rules.size(), 2u);
  EXPECT_EQ(g.rules[0].record, "job:up:sum");
  EXPECT_EQ(g.rules[0].labels.at("team"), "infra");
  const PromRule& a = g.rules[1];
  EXPECT_EQ(a.alert, "Down");
  EXPECT_EQ(a.expr, "job:up:sum\n== 0\n");
  EXPECT_EQ(a.for_ns, 5400 * kS);
  EXPECT_EQ(a.keep_firing_for_ns, 120 * kS);
  EXPECT_EQ(a.labels.at("severity"), "page");
  EXPECT_EQ(a.annotations.at("summary"), "{{ $labels.job }} is down");
  EXPECT_EQ(a.line, 9);
  EXPECT_EQ(f.groups[1].interval_ns, 0);
  EXPECT_TRUE(f.groups[1].rules.empty());
}

TEST(RuleFile, ReadsTheRepositoryRules) {
  const PromRuleFile f = read_rule_file(LLM_SOURCE_DIR "/monitoring/prometheus-rules.yml");
  int alerts = 0, records = 0;
  for (const auto& g : f.groups) {
    for (const auto& r : g.rules) (r.alert.empty() ? records : alerts)++;
  }
  EXPECT_EQ(alerts, 9);
  EXPECT_EQ(records, 7);
  const PromRule& fast = f.groups.back().rules[6];
  EXPECT_EQ(fast.alert, "VLLMTTFTErrorBudgetBurnFast");
  EXPECT_EQ(fast.for_ns, 120 * kS);
  EXPECT_NE(fast.expr.find("\nand\n"), std::string::npos) << fast.expr;
}

TEST(RuleFile, ErrorsNameFileLineAndField) {
  struct Case {
    std::string text, want;
  };
  const Case cases[] = {
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up\n        for: soon\n",
       "r.yml:6: 'for': expected a duration such as 30s, 5m or 1h, got 'soon'"},
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n", "r.yml:4: rule A: missing 'expr'"},
      {"groups:\n  - name: g\n    rules:\n      - expr: up\n",
       "r.yml:4: a rule needs exactly one of 'alert' and 'record'"},
      {"groups:\n  - name: g\n    rules:\n      - alert: A\n        expr: up\n        fro: 1m\n",
       "r.yml:6: unknown rule field 'fro'"},
      {"groups:\n  - rules: []\n", "r.yml:2: a group needs a 'name'"},
      {"groups:\n  - name: g\n    rules: []\n  - name: g\n    rules: []\n",
       "r.yml:4: duplicate group name 'g'"},
      {"group:\n  - name: g\n", "r.yml:1: unknown top-level field 'group'"},
      {"groups:\n  - name: g\n    rules:\n      - record: r\n        expr: up\n        for: 1m\n",
       "r.yml:4: recording rule r: 'for', 'keep_firing_for' and 'annotations' belong to alerting"},
      {"groups:\n  - name: g\n    interval: 0s\n    rules: []\n",
       "r.yml:3: 'interval' must be above 0"},
      {"groups: [\n", "r.yml:1: missing closing ]"},
  };
  for (const Case& c : cases) {
    try {
      parse_rule_file(c.text, "r.yml");
      ADD_FAILURE() << "no error for:\n" << c.text;
    } catch (const RuleFileError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(c.want, 0), 0u) << e.what();
    }
  }
  EXPECT_THROW(read_rule_file("/nonexistent/rules.yml"), RuleFileError);
}

TEST(RuleFile, PrometheusDurations) {
  EXPECT_EQ(parse_prometheus_duration_ns("0s"), 0);
  EXPECT_EQ(parse_prometheus_duration_ns("0"), 0);
  EXPECT_EQ(parse_prometheus_duration_ns("90s"), 90 * kS);
  EXPECT_EQ(parse_prometheus_duration_ns("1d"), 86400 * kS);
  EXPECT_EQ(parse_prometheus_duration_ns("5 m"), -1);
  EXPECT_EQ(parse_prometheus_duration_ns("-1m"), -1);
  EXPECT_EQ(parse_prometheus_duration_ns(""), -1);
}

}  // namespace
}  // namespace llm
