// What llmsim reports for trace requests vLLM's frontend would refuse: "rejected" in the summary
// and in requests.jsonl, never "error", and no tokens or latencies of theirs; the faults in
// summary.json; a step's tokens at once (on_tokens) give the inter-token latencies one call per
// token gives.
#include "sim/replay/replay_report.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "backends/sim/presets.h"
#include "sim/replay/replay.h"

namespace llm {
namespace {

TEST(ReplayReport, RequestsVllmWouldRefuseAreRejectedNotErrors) {
  ReplayConfig config;
  config.scheduler.block_size = 16;
  config.scheduler.max_model_len = 512;
  config.scheduler.num_gpu_blocks = 200;
  config.deployment.gpu = *find_gpu_preset("H200");
  config.deployment.model = *find_model_preset("Llama-3.2-1B");
  struct Entry {
    const char* id;
    int64_t prompt, max_tokens;
    const char* outcome;
  };
  const Entry entries[] = {
      {"fits", 100, -1, "stop"},
      {"too-long", 512, -1, "rejected"},  // the prompt fills max_model_len: no room to answer
      {"empty", 0, -1, "rejected"},
      {"no-tokens", 100, 0, "rejected"},
  };
  Trace trace;
  for (const Entry& e : entries) {
    TraceRequest r;
    r.id = e.id;
    r.prompt_len = e.prompt;
    r.output_len = 5;
    r.max_tokens = e.max_tokens;
    trace.requests.push_back(r);
  }
  std::ostringstream jsonl;
  ReplayReport report(&jsonl);
  const ReplayTotals totals = run_replay(trace, config, report);
  const ReplaySummary s = report.finish(totals.end_time, totals.sum(), 4);
  EXPECT_EQ(s.finish_reasons.at("rejected"), 3);
  EXPECT_EQ(s.finish_reasons.at("error"), 0);
  EXPECT_EQ(s.finish_reasons.at("stop"), 1);
  EXPECT_EQ(s.prompt_tokens, 100);  // only the request that ran
  EXPECT_EQ(s.e2e.count, 1);
  std::istringstream lines(jsonl.str());
  size_t i = 0;
  for (std::string line; std::getline(lines, line); ++i) {
    const nlohmann::json j = nlohmann::json::parse(line);
    const std::string id = j.at("id").get<std::string>();
    for (const Entry& e : entries) {
      if (id == e.id) {
        EXPECT_EQ(j.at("finish_reason"), e.outcome) << id;
      }
    }
  }
  EXPECT_EQ(i, 4u);
  EXPECT_NE(format_summary_table(s).find("rejected 3"), std::string::npos);
  EXPECT_NE(format_summary_json(s).find("\"rejected\": 3"), std::string::npos)
      << format_summary_json(s);
}

// summary.json lists the --fault windows the run was given, each with the seconds of it inside
// the run (a window after the end never ran); without --fault there is no "faults" member.
TEST(ReplayReport, SummaryJsonListsTheFaultWindowsAndWhetherTheyRan) {
  ReplaySummary s;
  s.duration_s = 100;
  EXPECT_EQ(format_summary_json(s).find("faults"), std::string::npos);
  s.faults = {parse_fault("engine-down:1:20s:50s"), parse_fault("http-5xx:30:1m:3m"),
              parse_fault("slow:0:3:2m:3m")};
  const nlohmann::json j = nlohmann::json::parse(format_summary_json(s));
  const nlohmann::json& f = j.at("faults");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], nlohmann::json::parse(R"({"spec": "engine-down:1:20s:50s", "kind": "engine-down",
      "engine": 1, "from_s": 20, "to_s": 50, "active_s": 30, "ran": true})"));
  EXPECT_EQ(f[1]["kind"], "http-5xx");
  EXPECT_EQ(f[1]["percent"], 30);
  EXPECT_FALSE(f[1].contains("engine"));
  EXPECT_DOUBLE_EQ(f[1]["active_s"].get<double>(), 40);  // 60 s to the end at 100 s
  EXPECT_EQ(f[2]["factor"], 3);
  EXPECT_EQ(f[2]["ran"], false);
  EXPECT_EQ(f[2]["active_s"], 0);
}

// The ITL sketch sums its values in order (a double sum): a step's tokens through on_tokens must
// give the very figures of one on_token per token, first tokens (no ITL) among them.
RC_GTEST_PROP(ReplayReport, OnTokensGivesTheItlsOfOneCallPerToken, ()) {
  ReplayReport one(nullptr, 16), batched(nullptr, 16);
  Request r;
  const auto steps = *rc::gen::inRange(1, 40);
  for (int step = 0; step < steps; ++step) {
    std::vector<TokenEvent> events;
    const auto size = *rc::gen::inRange(0, 20);
    for (int i = 0; i < size; ++i) {
      // Mostly the step's shared gap, sometimes a first token or a longer gap.
      const Nanos itl = *rc::gen::element(Nanos{kNoTime}, Nanos{1000}, Nanos{25000000},
                                          Nanos{25000001}, Nanos{7});
      events.push_back({&r, itl});
      one.on_token(r, 0, itl);
    }
    batched.on_tokens(events, 0);
  }
  const Distribution a = one.itl_sketch().summarize(), b = batched.itl_sketch().summarize();
  RC_ASSERT(a.count == b.count);
  RC_ASSERT(a.mean == b.mean);
  RC_ASSERT(a.p50 == b.p50);
  RC_ASSERT(a.p99 == b.p99);
  RC_ASSERT(a.p999 == b.p999);
  RC_ASSERT(a.max == b.max);
}

}  // namespace
}  // namespace llm
