// `llmsim replay --otlp-out FILE`: one llm_request span per trace request (n sequences together),
// on the simulated clock shifted to --start-time, byte-identical across runs, and with
// --collect-detailed-traces the engine's child spans.
#include "sim/cli/otlp_trace_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "backends/sim/api_server_costs.h"
#include "sim/cli/replay_command.h"

namespace llm {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kOtlpTrace = std::string(LLM_SOURCE_DIR) + "/traces/tiny.json";

std::string replay_to_otlp(std::vector<std::string> extra, std::string* err_out = nullptr,
                           const std::string& trace = kOtlpTrace) {
  const fs::path path =
      fs::temp_directory_path() /
      ("otlp_writer_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       ".jsonl");
  std::vector<std::string> args = {trace, "--no-progress", "--quiet", "--otlp-out", path.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  std::ostringstream out, err;
  const int code = run_replay_command(args, out, err);
  if (err_out) *err_out = err.str();
  EXPECT_EQ(code, 0) << err.str();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(path);
  return text.str();
}

std::vector<json> spans_of(const std::string& text) {
  std::vector<json> spans;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const json request = json::parse(line);
    const json& rs = request.at("resourceSpans").at(0);
    EXPECT_EQ(rs.at("resource").at("attributes").at(0).at("value").at("stringValue"), "llmsim");
    for (const json& s : rs.at("scopeSpans").at(0).at("spans")) spans.push_back(s);
  }
  return spans;
}

std::map<std::string, json> attributes(const json& span) {
  std::map<std::string, json> out;
  for (const json& a : span.at("attributes")) out[a.at("key")] = a.at("value");
  return out;
}

TEST(OtlpTraceWriter, OneRequestSpanPerTraceRequestOnTheStartTimeClock) {
  const std::vector<json> spans =
      spans_of(replay_to_otlp({"--start-time", "2026-03-01T12:00:00Z"}));
  ASSERT_EQ(spans.size(), 10u) << "tiny.json has ten requests";
  const uint64_t start = 1'772'366'400'000'000'000ULL;  // 2026-03-01T12:00:00Z
  std::map<std::string, json> by_id;
  for (const json& s : spans) {
    EXPECT_EQ(s.at("name"), "llm_request");
    EXPECT_EQ(s.at("kind"), 2);
    EXPECT_FALSE(s.contains("parentSpanId"));
    const uint64_t t0 = std::stoull(s.at("startTimeUnixNano").get<std::string>());
    const uint64_t t1 = std::stoull(s.at("endTimeUnixNano").get<std::string>());
    EXPECT_GE(t0, start);
    EXPECT_GE(t1, t0);
    by_id[attributes(s).at("gen_ai.request.id").at("stringValue")] = s;
  }
  // chat-0 arrives at 0 s, chat-1 at 0.05 s; the span starts at vLLM's arrival, when the API
  // server (modelled with the default GPU preset, H200) has read the body: request_ns later.
  const auto read = static_cast<uint64_t>(api_server_preset("H200")->request_ns);
  EXPECT_EQ(by_id.at("chat-0").at("startTimeUnixNano"), std::to_string(start + read));
  EXPECT_EQ(by_id.at("chat-1").at("startTimeUnixNano"),
            std::to_string(start + 50'000'000 + read));
  // chat-4 asks for n=2: one span, both sequences' finish reasons.
  const auto n2 = attributes(by_id.at("chat-4"));
  EXPECT_EQ(n2.at("gen_ai.request.n").at("intValue"), "2");
  EXPECT_EQ(n2.at("gen_ai.response.finish_reasons").at("arrayValue").at("values").size(), 2u);
  const auto a = attributes(by_id.at("chat-0"));
  EXPECT_EQ(a.at("gen_ai.usage.input_tokens").at("intValue"), "12");
  EXPECT_EQ(a.at("gen_ai.usage.output_tokens").at("intValue"), "20");
  EXPECT_TRUE(a.count("gen_ai.latency.time_to_first_token"));
}

TEST(OtlpTraceWriter, ByteIdenticalAcrossRunsAndSeedsChangeTheIds) {
  const std::string a = replay_to_otlp({});
  EXPECT_EQ(a, replay_to_otlp({}));
  const std::string b = replay_to_otlp({"--seed", "7"});
  EXPECT_NE(spans_of(a).at(0).at("traceId"), spans_of(b).at(0).at("traceId"));
}

TEST(OtlpTraceWriter, DetailedTracesAddChildSpans) {
  // 40 requests at once on a KV cache of 60 blocks: preemptions; every child span hangs off its
  // llm_request, and each preemption the span counts has its "preempted" child.
  const std::vector<json> spans = spans_of(replay_to_otlp(
      {"--collect-detailed-traces", "all", "--num-gpu-blocks-override", "60", "--block-size", "16",
       "--max-model-len", "512"},
      nullptr, "synthetic:n=40,rate=200,prompt=lognormal:100:0.5,output=lognormal:100:0.5,seed=1"));
  std::map<std::string, json> parents;
  std::map<std::string, int> names;
  int64_t preemptions = 0;
  for (const json& s : spans) {
    ++names[s.at("name")];
    if (s.at("name") != "llm_request") continue;
    parents[s.at("spanId")] = s;
    preemptions +=
        std::stoll(attributes(s).at("llmserve.num_preemptions").at("intValue").get<std::string>());
  }
  EXPECT_EQ(names["llm_request"], 40);
  EXPECT_EQ(names["queued"], 40);
  EXPECT_GE(names["prefill_chunk"], 40);
  EXPECT_GE(names["preempted"], 1);
  EXPECT_EQ(names["preempted"], preemptions);
  for (const json& s : spans) {
    if (s.at("name") == "llm_request") continue;
    ASSERT_TRUE(parents.count(s.at("parentSpanId"))) << s.dump();
    EXPECT_EQ(parents[s.at("parentSpanId")].at("traceId"), s.at("traceId"));
    EXPECT_EQ(s.at("kind"), 1);
  }
}

TEST(OtlpTraceWriter, DetailedTracesNeedOtlpOut) {
  std::ostringstream out, err;
  EXPECT_EQ(run_replay_command({kOtlpTrace, "--collect-detailed-traces", "all"}, out, err), 2);
  EXPECT_NE(err.str().find("--collect-detailed-traces: needs --otlp-out FILE"), std::string::npos)
      << err.str();
  EXPECT_EQ(run_replay_command(
                {kOtlpTrace, "--otlp-out", "/tmp/x", "--collect-detailed-traces", "gpu"}, out, err),
            2);
}

}  // namespace
}  // namespace llm
