// `llmsim replay --routing-policy llm-d|... --epp-*`: the flags reach the replay's EppView, bad
// values and contradictory flags exit 2 naming the flag, and a run's files are byte-identical
// across runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/cli/replay_command.h"

namespace llm {
namespace {

const std::string kAzureTrace = std::string(LLM_SOURCE_DIR) + "/traces/azure-conv-sample.json";

TEST(ReplayEppFlags, ReachTheReplayConfig) {
  const ReplayOptions plain = parse_replay_args({kAzureTrace, "--routing-policy", "llm-d"});
  const ReplayConfig defaults = make_replay_config(plain);
  EXPECT_EQ(defaults.routing, RoutingPolicy::kLlmD);
  EXPECT_EQ(defaults.epp.scrape_interval, 50'000'000);
  EXPECT_EQ(defaults.epp.staleness, 0);
  EXPECT_FALSE(defaults.epp.weights.has_value());
  const ReplayConfig c = make_replay_config(parse_replay_args(
      {kAzureTrace, "--routing-policy", "queue-scorer", "--epp-scrape-interval", "100ms",
       "--epp-metrics-staleness", "200ms", "--epp-scorer-weights", "queue=1,kv-cache=4"}));
  EXPECT_EQ(c.routing, RoutingPolicy::kQueueScorer);
  EXPECT_EQ(c.epp.scrape_interval, 100'000'000);
  EXPECT_EQ(c.epp.staleness, 200'000'000);
  ASSERT_TRUE(c.epp.weights.has_value());
  EXPECT_EQ(c.epp.weights->kv_cache, 4);
  EXPECT_EQ(make_replay_config(parse_replay_args({kAzureTrace, "--routing-policy", "llm-d",
                                                  "--epp-scrape-interval", "0"}))
                .epp.scrape_interval,
            0);
}

TEST(ReplayEppFlags, BadValuesAndContradictionsNameTheFlag) {
  struct Row {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Row> rows = {
      {{"--routing-policy", "llm-d", "--epp-scrape-interval", "fast"},
       "--epp-scrape-interval: expected 0 or a duration such as 50ms, 200ms or 1s, got 'fast'"},
      {{"--routing-policy", "llm-d", "--epp-metrics-staleness", "-5ms"},
       "--epp-metrics-staleness: expected 0 or a duration such as 50ms, 200ms or 1s, got '-5ms'"},
      {{"--routing-policy", "llm-d", "--epp-scorer-weights", "lora=1"},
       "--epp-scorer-weights: 'lora': unknown scorer (queue, kv-cache, prefix-cache)"},
      {{"--routing-policy", "round-robin", "--epp-scrape-interval", "50ms"},
       "--epp-scrape-interval, --epp-metrics-staleness and --epp-scorer-weights need an llm-d "
       "routing policy (llm-d, queue-scorer, kv-cache-utilization-scorer, prefix-cache-scorer), "
       "not --routing-policy round-robin"},
      {{"--epp-scorer-weights", "queue=1"},
       "--epp-scrape-interval, --epp-metrics-staleness and --epp-scorer-weights need an llm-d "
       "routing policy (llm-d, queue-scorer, kv-cache-utilization-scorer, prefix-cache-scorer), "
       "not --routing-policy round-robin"},
      {{"--routing-policy", "llm-d", "--epp-scrape-interval", "0", "--epp-metrics-staleness", "1s"},
       "--epp-metrics-staleness: needs scrapes (--epp-scrape-interval 0 routes on the live "
       "state)"},
  };
  for (const Row& row : rows) {
    std::vector<std::string> args = {kAzureTrace};
    args.insert(args.end(), row.args.begin(), row.args.end());
    std::ostringstream out, err;
    EXPECT_EQ(run_replay_command(args, out, err), 2);
    EXPECT_NE(err.str().find(row.message), std::string::npos) << err.str();
  }
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ReplayEppFlags, ALlmDReplayIsByteIdenticalAcrossRuns) {
  const auto dir = std::filesystem::temp_directory_path() / "llmsim-epp-identical";
  std::filesystem::remove_all(dir);
  std::string first;
  for (const char* run : {"a", "b"}) {
    std::ostringstream out, err;
    ASSERT_EQ(
        run_replay_command({kAzureTrace, "--data-parallel-size", "3", "--routing-policy", "llm-d",
                            "--epp-metrics-staleness", "100ms", "--arrival-rate-scale", "4",
                            "--quiet", "--no-progress", "--output-dir", (dir / run).string()},
                           out, err),
        0)
        << err.str();
  }
  for (const char* file : {"requests.jsonl", "summary.json"}) {
    const std::string a = read(dir / "a" / file);
    EXPECT_FALSE(a.empty());
    EXPECT_EQ(a, read(dir / "b" / file)) << file;
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace llm
