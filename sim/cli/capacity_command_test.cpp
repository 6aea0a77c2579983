// `llmsim capacity`: the answer checked against independent `llmsim replay --slo` runs at it and
// one engine below it, output independent of --jobs, --search, the capacity signals and
// what-ifs, --result-json, and bad usage (exit 2 naming the flag).
#include "sim/cli/capacity_command.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "sim/cli/replay_command.h"
#include "sim/cli/testing/bursty_trace.h"

namespace llm {
namespace {

const std::string kAzure = std::string(LLM_SOURCE_DIR) + "/traces/azure-conv-sample.json";
const std::string kSlo = "ttft_p99=2s,tpot_p99=100ms";

int run_capacity(const std::vector<std::string>& args, std::string* out, std::string* err) {
  std::ostringstream o, e;
  const int code = run_capacity_command(args, o, e);
  *out = o.str();
  *err = e.str();
  return code;
}

int replay_exit(std::vector<std::string> args) {
  std::ostringstream o, e;
  args.insert(args.end(), {"--quiet", "--no-progress", "--slo", kSlo, "--fail-on-slo"});
  return run_replay_command(args, o, e);
}

int64_t engines_in(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m, std::regex("\nengines: ([0-9]+) "))) return -1;
  return std::stoll(m[1]);
}

TEST(CapacityCommand, TheAnswerMeetsTheSlosAndOneEngineFewerDoesNot) {
  std::string out, err;
  ASSERT_EQ(run_capacity({kAzure, "--slo", kSlo, "--arrival-rate-scale", "40", "--jobs", "2"}, &out,
                         &err),
            0)
      << err;
  const int64_t n = engines_in(out);
  ASSERT_GT(n, 1) << out;  // 40 times the load is too much for one engine
  // Independent replays: N engines meet the SLOs, N - 1 miss them.
  EXPECT_EQ(replay_exit(
                {kAzure, "--arrival-rate-scale", "40", "--data-parallel-size", std::to_string(n)}),
            0);
  EXPECT_EQ(replay_exit({kAzure, "--arrival-rate-scale", "40", "--data-parallel-size",
                         std::to_string(n - 1)}),
            1);
  EXPECT_NE(out.find("one step below, at " + std::to_string(n - 1) + " engine(s):"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("MISSED"), std::string::npos) << out;
  EXPECT_NE(out.find("monotone: yes"), std::string::npos) << out;
}

TEST(CapacityCommand, TheSustainedScaleIsTheLargestThatOneEngineMeets) {
  std::string out, err;
  ASSERT_EQ(run_capacity({kAzure, "--slo", kSlo}, &out, &err), 0) << err;
  EXPECT_EQ(engines_in(out), 1) << out;
  EXPECT_NE(out.find("one step below: none (one engine is the fewest)"), std::string::npos);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      out, m,
      std::regex("one engine sustains ([0-9.]+)x the trace's arrival rate \\(misses at "
                 "([0-9.]+)x")))
      << out;
  const double sustained = std::stod(m[1]), missed = std::stod(m[2]);
  EXPECT_GT(sustained, 1.0);
  EXPECT_LT(missed / sustained, 1.03);  // one step of 2^(1/32), printed to four digits
  // Replays at (a hair under) the printed figures agree.
  char meets[32], misses[32];
  std::snprintf(meets, sizeof meets, "%.6g", sustained * 0.999);
  std::snprintf(misses, sizeof misses, "%.6g", missed * 1.001);
  EXPECT_EQ(replay_exit({kAzure, "--arrival-rate-scale", meets}), 0) << meets;
  EXPECT_EQ(replay_exit({kAzure, "--arrival-rate-scale", misses}), 1) << misses;
}

TEST(CapacityCommand, TheOutputDoesNotDependOnJobs) {
  std::string one, three, err;
  ASSERT_EQ(run_capacity({kAzure, "--slo", kSlo, "--arrival-rate-scale", "30", "--jobs", "1"}, &one,
                         &err),
            0);
  ASSERT_EQ(run_capacity({kAzure, "--slo", kSlo, "--arrival-rate-scale", "30", "--jobs", "3"},
                         &three, &err),
            0);
  EXPECT_EQ(one, three);
}

TEST(CapacityCommand, SearchPicksTheCandidateNeedingFewestEngines) {
  std::string out, err;
  ASSERT_EQ(run_capacity({kAzure, "--slo", kSlo, "--arrival-rate-scale", "20", "--search",
                          "max-num-seqs=2,256"},
                         &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("candidates:\n  --max-num-seqs 2: "), std::string::npos) << out;
  std::smatch two, many;
  ASSERT_TRUE(std::regex_search(out, two, std::regex("--max-num-seqs 2: ([0-9]+) engine")));
  ASSERT_TRUE(std::regex_search(out, many, std::regex("--max-num-seqs 256: ([0-9]+) engine")));
  EXPECT_GT(std::stoi(two[1]), std::stoi(many[1])) << out;
  EXPECT_NE(out.find("--max-num-seqs 256: " + std::string(many[1]) + " engine(s)  <- answer"),
            std::string::npos)
      << out;
  EXPECT_EQ(engines_in(out), std::stoi(many[1]));
  EXPECT_NE(out.find("with --max-num-seqs 256\n"), std::string::npos) << out;
}

TEST(CapacityCommand, ReadsAKvBoundBusiestHourAndReplaysTheMemoryWhatIfs) {
  std::string out, err;
  ASSERT_EQ(run_capacity({kAzure, "--slo", kSlo, "--arrival-rate-scale", "8",
                          "--num-gpu-blocks-override", "2000", "--max-model-len", "16384"},
                         &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("capacity signals at the busiest hour (the whole trace"), std::string::npos)
      << out;
  EXPECT_NE(out.find("pattern: kv-bound: "), std::string::npos) << out;
  EXPECT_NE(out.find("response: more KV memory or GPUs"), std::string::npos) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("  --kv-cache-dtype fp8: ttft_p99 [0-9.]+ m?s")))
      << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("  --gpu-memory-utilization 0.97: ttft_p99 ")))
      << out;
  EXPECT_NE(out.find("--num-gpu-blocks-override fixes the KV blocks"), std::string::npos) << out;
}

TEST(CapacityCommand, WhatIfsChangeTheKvCapacityWithoutAnOverride) {
  std::string out, err;
  ASSERT_EQ(run_capacity({kAzure, "--slo", kSlo}, &out, &err), 0) << err;
  std::smatch base, fp8;
  // The fp8 what-if's KV blocks double those of the 16-bit cache.
  ASSERT_TRUE(std::regex_search(out, fp8, std::regex("--kv-cache-dtype fp8: .*KV blocks ([0-9]+)")))
      << out;
  std::ostringstream o, e;
  ASSERT_EQ(run_replay_command({kAzure, "--no-progress"}, o, e), 0);
  const std::string table = o.str();
  ASSERT_TRUE(std::regex_search(table, base, std::regex("KV-cache blocks +([0-9]+)")));
  EXPECT_EQ(std::stoll(fp8[1]), 2 * std::stoll(base[1]));
  EXPECT_NE(out.find("pattern: headroom"), std::string::npos) << out;
}

TEST(CapacityCommand, ResultJsonHasTheAnswerAndTheFiguresAsSummaryJson) {
  const std::string path = ::testing::TempDir() + "/capacity_result.json";
  std::string out, err;
  ASSERT_EQ(
      run_capacity({kAzure, "--slo", kSlo, "--arrival-rate-scale", "40", "--result-json", path},
                   &out, &err),
      0)
      << err;
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["engines"].get<int64_t>(), engines_in(out));
  EXPECT_EQ(j["engine_args"]["routing-policy"], "round-robin");
  EXPECT_DOUBLE_EQ(j["slo"]["ttft_p99"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["slo"]["tpot_p99"].get<double>(), 0.1);
  // at_answer and below_answer are summary.json objects.
  EXPECT_TRUE(j["at_answer"].contains("ttft_s")) << j["at_answer"].dump();
  EXPECT_LE(j["at_answer"]["ttft_s"]["p99"].get<double>(), 2.0);
  EXPECT_TRUE(j["slo_below_answer"]["ttft_p99"]["met"] == false ||
              j["slo_below_answer"]["tpot_p99"]["met"] == false);
  EXPECT_TRUE(j["monotone"].get<bool>());
  EXPECT_GT(j["one_engine_max_arrival_rate_scale"].get<double>(), 1.0);
  EXPECT_EQ(j["signals"]["pattern"], "compute-bound");
  std::filesystem::remove(path);
}

TEST(CapacityCommand, TheAnswerIsInGpusAndMoneyWithTensorParallel) {
  const std::string path = ::testing::TempDir() + "/capacity_gpus.json";
  std::string out, err;
  ASSERT_EQ(
      run_capacity({kAzure, "--slo", kSlo, "--arrival-rate-scale", "40", "--tensor-parallel-size",
                    "2", "--gpu-hour-cost", "4", "--result-json", path},
                   &out, &err),
      0)
      << err;
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  const int64_t engines = j["engines"].get<int64_t>();
  EXPECT_EQ(j["gpus"].get<int64_t>(), 2 * engines);
  const double hours = j["at_answer"]["duration_s"].get<double>() / 3600.0;
  EXPECT_DOUBLE_EQ(j["gpu_hours"].get<double>(), 2.0 * static_cast<double>(engines) * hours);
  EXPECT_DOUBLE_EQ(j["cost"].get<double>(), 4 * j["gpu_hours"].get<double>());
  EXPECT_NE(out.find("gpus: " + std::to_string(2 * engines) + " (" + std::to_string(engines) +
                     " engine(s) x tensor parallel 2)"),
            std::string::npos)
      << out;
  // The sustained load is also said against the asked 40x, in requests per second.
  EXPECT_NE(out.find("x the load asked for (--arrival-rate-scale 40: "), std::string::npos) << out;
  EXPECT_NE(out.find(" at 4 per GPU-hour\n"), std::string::npos) << out;  // no provenance
  EXPECT_FALSE(j.contains("gpu_hour_cost_source"));
  std::filesystem::remove(path);
}

// Without --gpu-hour-cost the cost is at the GPU preset's list price, saying where it is from;
// a preset without one has no cost.
TEST(CapacityCommand, TheCostDefaultsToTheGpusListPriceWithItsSource) {
  const std::string path = ::testing::TempDir() + "/capacity_list_price.json";
  std::string out, err;
  ASSERT_EQ(
      run_capacity({kAzure, "--slo", kSlo, "--gpu", "H100-SXM", "--result-json", path}, &out, &err),
      0)
      << err;
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_DOUBLE_EQ(j["gpu_hour_cost"].get<double>(), 6.88);
  EXPECT_DOUBLE_EQ(j["cost"].get<double>(), 6.88 * j["gpu_hours"].get<double>());
  const std::string source = j["gpu_hour_cost_source"].get<std::string>();
  EXPECT_EQ(source.rfind("H100-SXM list price: AWS EC2 p5.48xlarge (8 GPUs) on-demand, us-east-1, "
                         "$55.04/h, read 2026-11-09 from ",
                         0),
            0u)
      << source;
  EXPECT_NE(out.find(" at 6.88 per GPU-hour (" + source + "; --gpu-hour-cost C to use yours)\n"),
            std::string::npos)
      << out;
  std::filesystem::remove(path);
  ASSERT_EQ(run_capacity({kAzure, "--slo", kSlo, "--gpu", "L40S"}, &out, &err), 0) << err;
  EXPECT_EQ(out.find("per GPU-hour"), std::string::npos) << out;
}

TEST(CapacityCommand, SearchFlagsGoBeforeADoubleDash) {
  std::string out, err;
  ASSERT_EQ(
      run_capacity({"--slo", kSlo, "--search", "max-num-seqs=64,256", "--", kAzure}, &out, &err), 0)
      << err;
  EXPECT_NE(out.find("  --max-num-seqs 64: 1 engine(s)  <- answer\n"), std::string::npos) << out;
}

TEST(CapacityCommand, NoAnswerWithinMaxEngines) {
  std::string out, err;
  ASSERT_EQ(run_capacity({kAzure, "--slo", "ttft_p99=1us", "--max-engines", "3"}, &out, &err), 0)
      << err;
  EXPECT_NE(out.find("engines: none: 3 engines (--max-engines) still miss the SLOs"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("replayed: 1 engine(s) missed, 2 engine(s) missed, 3 engine(s) missed\n"),
            std::string::npos)
      << out;
}

// The arrival-rate search stretches time: on a bursty trace a warning says that the bursts stay;
// --load-scaling sample is quiet.
TEST(CapacityCommand, WarnsThatItsScaleSearchStretchesABurstyTrace) {
  const std::string trace = testing::bursty_trace("capacity_bursty");
  std::string out, err;
  ASSERT_EQ(run_capacity({trace, "--slo", "ttft_p99=2s", "--max-engines", "2"}, &out, &err), 0)
      << err;
  EXPECT_EQ(err.rfind("llmsim capacity: warning: the search for one engine's largest "
                      "--arrival-rate-scale stretches time, and 40 requests arrive on 10 instants",
                      0),
            0u)
      << err;
  ASSERT_EQ(run_capacity(
                {trace, "--slo", "ttft_p99=2s", "--max-engines", "2", "--load-scaling", "sample"},
                &out, &err),
            0)
      << err;
  EXPECT_EQ(err, "");
  ASSERT_EQ(run_capacity({kAzure, "--slo", kSlo, "--max-engines", "2"}, &out, &err), 0) << err;
  EXPECT_EQ(err, "");  // not bursty
}

TEST(CapacityCommand, BadUsageExitsTwoNamingTheFlag) {
  struct Row {
    std::vector<std::string> args;
    const char* message_start;
  };
  const Row rows[] = {
      {{kAzure}, "llmsim capacity: missing --slo KEY=V,..."},
      {{"--slo", kSlo}, "llmsim capacity: missing TRACE"},
      {{kAzure, "--slo", "ttft_p99=2"},
       "llmsim capacity: --slo: ttft_p99=2: ttft_p99 is a latency"},
      {{kAzure, "--slo", "ttft_p42x=2s"},
       "llmsim capacity: --slo: ttft_p42x=2s: unknown figure 'ttft_p42x'"},
      {{kAzure, "--slo", "ttft=2s"},
       "llmsim capacity: --slo: ttft=2s: a per-request target, for attainment or goodput"},
      {{kAzure, "--slo"}, "llmsim capacity: --slo: missing value"},
      {{kAzure, "--slo", kSlo, "--data-parallel-size", "2"},
       "llmsim capacity: --data-parallel-size: capacity searches the number of engines"},
      {{kAzure, "--slo", kSlo, "--output-dir", "x"},
       "llmsim capacity: --output-dir: not a capacity flag"},
      {{kAzure, "--slo", kSlo, "--frobnicate"},
       "llmsim capacity: unknown flag --frobnicate (see llmsim capacity --help)"},
      {{kAzure, "--slo", kSlo, "--max-engines", "0"}, "llmsim capacity: --max-engines: "},
      {{kAzure, "--slo", kSlo, "--jobs", "x"}, "llmsim capacity: --jobs: "},
      {{kAzure, "--slo", kSlo, "--gpu-hour-cost", "-1"}, "llmsim capacity: --gpu-hour-cost: "},
      {{kAzure, "--slo", kSlo, "--gpu-hour-cost", "cheap"}, "llmsim capacity: --gpu-hour-cost: "},
      {{kAzure, "--slo", kSlo, "--search", "max-num-seqs"},
       "llmsim capacity: --search: expected FLAG=V1,V2,..."},
      {{kAzure, "--slo", kSlo, "--search", "max-num-seqs=64,,128"},
       "llmsim capacity: --search: max-num-seqs=64,,128: empty value"},
      {{kAzure, "--slo", kSlo, "--search", "max-num-seqs=64,many"},
       "llmsim capacity: --search: --max-num-seqs many: --max-num-seqs"},
      {{kAzure, "--slo", kSlo, "--search", "max-num-sequences=64"},
       "llmsim capacity: --search: --max-num-sequences 64: unknown flag --max-num-sequences"},
      {{kAzure, "--slo", kSlo, "--search", "data-parallel-size=1,2"},
       "llmsim capacity: --search: data-parallel-size is what capacity searches"},
      {{kAzure, "--slo", kSlo, "--search", "max-num-seqs=1", "--search", "max-num-seqs=2"},
       "llmsim capacity: --search: max-num-seqs given twice"},
      {{kAzure, "--slo", kSlo, "--model", "Llama-3.1-70B"}, "llmsim capacity: "},
      {{std::string(LLM_SOURCE_DIR) + "/no-such-trace.json", "--slo", kSlo}, "llmsim capacity: "},
  };
  for (const Row& row : rows) {
    std::string out, err;
    EXPECT_EQ(run_capacity(row.args, &out, &err), 2) << row.message_start;
    EXPECT_EQ(err.rfind(row.message_start, 0), 0u) << row.message_start << "\ngot: " << err;
    EXPECT_EQ(out, "") << row.message_start;
  }
  std::string out, err;
  EXPECT_EQ(run_capacity({"--help"}, &out, &err), 0);
  EXPECT_EQ(out.rfind("usage: llmsim capacity TRACE --slo KEY=V,...", 0), 0u);
  EXPECT_NE(out.find("Method: "), std::string::npos);
}

}  // namespace
}  // namespace llm
