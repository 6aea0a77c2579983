// Inlining recording rules into alert expressions: what is replaced and what is refused.
#include "sim/alerts/recording_inline.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

std::map<std::string, PromRule> records() {
  std::map<std::string, PromRule> r;
  r["job:up:sum"].expr = "sum by (job) (up)";
  r["job:up:ratio"].expr = "job:up:sum / job:up:count";
  r["job:up:count"].expr = "count by (job) (up)";
  r["tagged"].expr = "up";
  r["tagged"].labels = {{"team", "a\"b"}};
  return r;
}

TEST(RecordingInline, ReplacesRecordedNamesOnly) {
  struct Case {
    std::string expr, want;
  };
  const Case cases[] = {
      {"job:up:sum == 0", "(sum by (job) (up)) == 0"},
      {"job:up:ratio < 0.5", "((sum by (job) (up)) / (count by (job) (up))) < 0.5"},
      {"rate(job:up:sum_total[5m])", "rate(job:up:sum_total[5m])"},    // another name
      {"up{name=\"job:up:sum\"} > 0", "up{name=\"job:up:sum\"} > 0"},  // inside a string
      {"tagged", "label_replace((up), \"team\", \"a\\\"b\", \"\", \"\")"},
      {"avg_over_time(x[5m]) > 0.9", "avg_over_time(x[5m]) > 0.9"},
      {"job:up:sum\nand\njob:up:count", "(sum by (job) (up))\nand\n(count by (job) (up))"},
  };
  for (const Case& c : cases)
    EXPECT_EQ(inline_recording_rules(c.expr, records()), c.want) << c.expr;
}

TEST(RecordingInline, RefusesWhatWouldChangeMeaning) {
  EXPECT_THROW(inline_recording_rules("job:up:sum{job=\"a\"} == 0", records()),
               std::invalid_argument);
  EXPECT_THROW(inline_recording_rules("max_over_time(job:up:sum [5m])", records()),
               std::invalid_argument);
  auto cyclic = records();
  cyclic["a:b"].expr = "c:d + 1";
  cyclic["c:d"].expr = "a:b";
  try {
    inline_recording_rules("a:b", cyclic);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
}

TEST(RecordingInline, CollectsTheRecordingRulesOfAFile) {
  PromRuleFile f;
  f.groups.push_back({"g", 0, {}, 1});
  PromRule r;
  r.record = "x:y";
  r.expr = "up";
  f.groups[0].rules.push_back(r);
  PromRule a;
  a.alert = "A";
  a.expr = "x:y == 0";
  f.groups[0].rules.push_back(a);
  EXPECT_EQ(recording_rules(f).size(), 1u);
  f.groups[0].rules.push_back(r);  // the same rule twice is fine
  EXPECT_EQ(recording_rules(f).size(), 1u);
  r.expr = "down";
  f.groups[0].rules.push_back(r);
  EXPECT_THROW(recording_rules(f), std::invalid_argument);
}

}  // namespace
}  // namespace llm
