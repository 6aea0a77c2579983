// `llmsim alerts`' command line: its own flags beside the replay's, and the usage errors (exit 2,
// naming the flag) that come before any Prometheus is started.
#include "sim/cli/alerts_command.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/flag_values.h"
#include "sim/faults/fault_window.h"

namespace llm {
namespace {

TEST(AlertsArgs, SplitsItsFlagsFromTheReplayFlags) {
  const AlertsOptions o = parse_alerts_args({"trace.json",
                                             "--rules",
                                             "r.yml",
                                             "--max-num-seqs",
                                             "8",
                                             "--evaluation-interval=15s",
                                             "--fail-on-fire",
                                             "--expect-fire",
                                             "A",
                                             "--expect-fire=B",
                                             "--expect-quiet",
                                             "C",
                                             "--data-parallel-size",
                                             "2",
                                             "--timeline-json",
                                             "t.json",
                                             "--promtool",
                                             "/p/promtool",
                                             "--strict",
                                             "--fault",
                                             "engine-down:1:1m:4m",
                                             "--fault=http-5xx:20:0:90s"});
  EXPECT_EQ(o.rules_path, "r.yml");
  EXPECT_EQ(o.evaluation_interval_ns, 15'000'000'000);
  EXPECT_TRUE(o.expect.fail_on_fire);
  EXPECT_TRUE(o.expect.strict);
  EXPECT_EQ(o.expect.expect_fire, (std::vector<std::string>{"A", "B"}));
  EXPECT_EQ(o.expect.expect_quiet, (std::vector<std::string>{"C"}));
  ASSERT_EQ(o.replay.faults.size(), 2u);
  EXPECT_EQ(o.replay.faults[0], parse_fault("engine-down:1:1m:4m"));
  EXPECT_EQ(o.replay.faults[1].kind, FaultKind::kHttp5xx);
  EXPECT_EQ(o.replay.faults[1].to_ns, 90'000'000'000);
  EXPECT_EQ(o.timeline_json, "t.json");
  EXPECT_EQ(o.tools.promtool, "/p/promtool");
  EXPECT_EQ(o.tools.prometheus, "prometheus");
  EXPECT_EQ(o.replay.trace_path, "trace.json");
  EXPECT_EQ(o.replay.data_parallel_size, 2);
  EXPECT_EQ(o.replay.engine.max_num_seqs, 8);
  const AlertsOptions plain = parse_alerts_args({"t.json", "--rules", "r.yml"});
  EXPECT_EQ(plain.evaluation_interval_ns, 60'000'000'000);
  EXPECT_FALSE(plain.expect.strict);
  EXPECT_TRUE(plain.replay.faults.empty());
}

TEST(AlertsArgs, UsageErrorsNameTheFlag) {
  struct Case {
    std::vector<std::string> args;
    std::string want;
  };
  const Case cases[] = {
      {{"t.json"}, "--rules: required (a Prometheus rule file)"},
      {{"t.json", "--rules"}, "--rules: missing value"},
      {{"t.json", "--rules", ""}, "--rules: empty path"},
      {{"t.json", "--rules", "r.yml", "--evaluation-interval", "often"},
       "--evaluation-interval: expected a duration such as 15s or 1m, got 'often'"},
      {{"t.json", "--rules", "r.yml", "--fail-on-fire=yes"}, "--fail-on-fire: takes no value"},
      {{"t.json", "--rules", "r.yml", "--strict=yes"}, "--strict: takes no value"},
      {{"t.json", "--rules", "r.yml", "--fault", "slow:0:1m:2m"},
       "--fault slow:0:1m:2m: expected slow:ENGINE:FACTOR:FROM:TO (5 parts separated by ':'), got "
       "4 parts"},
      {{"t.json", "--rules", "r.yml", "--bogus"},
       "unknown flag --bogus (see llmsim alerts --help)"},
      {{"--rules", "r.yml"}, "missing TRACE (a trace file or synthetic:...)"},
      {{"t.json", "--rules", "r.yml", "--max-num-seqs", "x"},
       "--max-num-seqs: expected an integer, got 'x'"},
  };
  for (const Case& c : cases) {
    try {
      parse_alerts_args(c.args);
      ADD_FAILURE() << "no error, want " << c.want;
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()), c.want);
    }
  }
}

TEST(AlertsCommand, BadRulesAndUnknownAlertsExitTwoBeforeAnyReplay) {
  const std::string rules = ::testing::TempDir() + "alerts_command_test_rules.yml";
  std::ofstream(rules) << "groups:\n  - name: g\n    rules:\n      - alert: Busy\n"
                          "        expr: vllm:num_requests_waiting > 10\n        for: later\n";
  std::ostringstream out, err;
  EXPECT_EQ(run_alerts_command({"synthetic:n=2", "--rules", rules}, out, err), 2);
  EXPECT_NE(err.str().find("--rules: " + rules + ":6: 'for': expected a duration"),
            std::string::npos)
      << err.str();
  std::ofstream(rules) << "groups:\n  - name: g\n    rules:\n      - alert: Busy\n"
                          "        expr: vllm:num_requests_waiting > 10\n";
  err.str("");
  EXPECT_EQ(
      run_alerts_command({"synthetic:n=2", "--rules", rules, "--expect-quiet", "Idle"}, out, err),
      2);
  EXPECT_NE(err.str().find("--expect-quiet: no alert Idle in " + rules + " (its alerts: Busy)"),
            std::string::npos)
      << err.str();
  err.str("");
  EXPECT_EQ(run_alerts_command({"synthetic:n=2", "--rules", "/nonexistent/r.yml"}, out, err), 2);
  EXPECT_NE(err.str().find("/nonexistent/r.yml: cannot open file"), std::string::npos) << err.str();
  std::remove(rules.c_str());
}

TEST(AlertsCommand, HelpListsItsFlagsAndTheReplayFlags) {
  std::ostringstream out, err;
  EXPECT_EQ(run_alerts_command({"--help"}, out, err), 0);
  EXPECT_EQ(out.str().rfind("usage: llmsim alerts TRACE --rules FILE.yml", 0), 0u);
  for (const char* flag : {"--rules", "--evaluation-interval", "--fail-on-fire", "--expect-fire",
                           "--expect-quiet", "--timeline-json", "--max-num-seqs", "--start-time"}) {
    EXPECT_NE(out.str().find(flag), std::string::npos) << flag;
  }
}

TEST(LastOpenMetricsSample, IsTheLatestTimestamp) {
  const std::string path = ::testing::TempDir() + "alerts_command_test.om";
  std::ofstream(path) << "# TYPE a gauge\na{x=\"1\"} 1 1767225600\na{x=\"1\"} 2 1767225855.5\n"
                         "# TYPE b gauge\nb 0 1767225700\n# EOF\n";
  EXPECT_EQ(last_openmetrics_sample_ns(path), 1'767'225'855'500'000'000);
  std::ofstream(path) << "# EOF\n";
  EXPECT_THROW(last_openmetrics_sample_ns(path), std::runtime_error);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace llm
