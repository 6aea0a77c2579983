#include "loadgen/metrics.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "loadgen/bench.h"
#include "loadgen/cli.h"

namespace llm::loadgen {
namespace {

constexpr int64_t kNsPerMs = 1'000'000;

RequestResult ok(int64_t ttft_ms, int64_t e2e_ms, int64_t tokens, std::vector<int64_t> itl_ms,
                 int64_t prompt = 10) {
  RequestResult r;
  r.success = true;
  r.ttft_ns = ttft_ms * kNsPerMs;
  r.e2e_ns = e2e_ms * kNsPerMs;
  r.output_tokens = tokens;
  r.content_chunks = static_cast<int64_t>(itl_ms.size()) + 1;
  r.prompt_tokens = prompt;
  for (int64_t g : itl_ms) r.itl_ns.push_back(g * kNsPerMs);
  return r;
}

RequestResult failed(std::string msg) {
  RequestResult r;
  r.error = std::move(msg);
  return r;
}

// Three requests over 2 s:
//  A: TTFT 100, E2E 500, 5 tokens, gaps 100 x4  -> TPOT (500-100)/4 = 100
//  B: TTFT 200, E2E 200, 1 token                -> no TPOT sample (0 for goodput)
//  C: TTFT 300, E2E 1300, 3 tokens, gaps 400,600 -> TPOT (1300-300)/2 = 500
//  D: failed
std::vector<RequestResult> sample() {
  return {ok(100, 500, 5, {100, 100, 100, 100}), ok(200, 200, 1, {}), ok(300, 1300, 3, {400, 600}),
          failed("HTTP 500: boom")};
}

TEST(Metrics, Definitions) {
  const BenchReport r = compute_report(sample(), 2.0, Slos{});
  EXPECT_EQ(r.completed, 3);
  EXPECT_EQ(r.failed, 1);
  EXPECT_EQ(r.total_output_tokens, 9);
  EXPECT_EQ(r.total_input_tokens, 30);
  EXPECT_DOUBLE_EQ(r.request_throughput, 1.5);
  EXPECT_DOUBLE_EQ(r.output_throughput, 4.5);
  EXPECT_DOUBLE_EQ(r.total_token_throughput, 19.5);
  // TTFT {100, 200, 300}: numpy percentiles interpolate between ranks.
  EXPECT_DOUBLE_EQ(r.ttft.mean, 200);
  EXPECT_DOUBLE_EQ(r.ttft.median, 200);
  EXPECT_DOUBLE_EQ(r.ttft.p90, 280);
  EXPECT_DOUBLE_EQ(r.ttft.p99, 298);
  // TPOT {100, 500}: only requests with more than one token.
  EXPECT_EQ(r.tpot.count, 2);
  EXPECT_DOUBLE_EQ(r.tpot.mean, 300);
  EXPECT_DOUBLE_EQ(r.tpot.p90, 460);
  // ITL: every gap {100,100,100,100,400,600}.
  EXPECT_EQ(r.itl.count, 6);
  EXPECT_DOUBLE_EQ(r.itl.mean, 1400.0 / 6);
  EXPECT_DOUBLE_EQ(r.itl.median, 100);
  EXPECT_DOUBLE_EQ(r.itl.p90, 500);  // rank 4.5 between 400 and 600
  // E2E {200, 500, 1300}
  EXPECT_DOUBLE_EQ(r.e2e.median, 500);
  EXPECT_DOUBLE_EQ(r.e2e.max, 1300);
  EXPECT_FALSE(r.request_goodput.has_value());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0], "HTTP 500: boom");
}

struct GoodputCase {
  std::vector<std::string> slos;
  int64_t good;
};

TEST(Metrics, GoodputTable) {
  const GoodputCase cases[] = {
      {{"ttft:150"}, 1},                          // A only
      {{"ttft:200"}, 2},                          // A, B (<= is inclusive)
      {{"tpot:100"}, 2},                          // A (100) and B (one token: TPOT 0)
      {{"tpot:99"}, 1},                           // B only
      {{"e2e:500"}, 2},                           // A, B
      {{"e2el:1300"}, 3},                         // all completed ones; never the failed one
      {{"ttft:1000", "tpot:100", "e2e:400"}, 1},  // B only
      {{"ttft:0"}, 0},
  };
  for (const auto& c : cases) {
    Slos slos;
    for (const auto& s : c.slos) parse_slo(s, slos);
    const BenchReport r = compute_report(sample(), 2.0, slos);
    SCOPED_TRACE(c.slos[0]);
    EXPECT_EQ(r.good_requests, c.good);
    ASSERT_TRUE(r.request_goodput.has_value());
    EXPECT_DOUBLE_EQ(*r.request_goodput, static_cast<double>(c.good) / 2.0);
  }
}

TEST(Metrics, TpotOfOneRequest) {
  EXPECT_DOUBLE_EQ(request_tpot_ms(ok(10, 110, 11, {})), 10);
  EXPECT_DOUBLE_EQ(request_tpot_ms(ok(10, 10, 1, {})), 0);
}

TEST(Metrics, BadSlos) {
  Slos s;
  EXPECT_THROW(parse_slo("ttft", s), std::invalid_argument);
  EXPECT_THROW(parse_slo("foo:1", s), std::invalid_argument);
  EXPECT_THROW(parse_slo("ttft:-1", s), std::invalid_argument);
  EXPECT_THROW(parse_slo("ttft:1x", s), std::invalid_argument);
}

TEST(Metrics, ReportPrintsDefinitionsAndJsonHasVllmKeys) {
  Slos slos;
  parse_slo("ttft:150", slos);
  const BenchReport r = compute_report(sample(), 2.0, slos);
  std::ostringstream out;
  print_report(r, slos, out);
  EXPECT_NE(out.str().find("Median TTFT (ms):"), std::string::npos);
  EXPECT_NE(out.str().find("request sent -> first chunk"), std::string::npos);
  EXPECT_NE(out.str().find("Request goodput (req/s):"), std::string::npos);
  const auto j = report_to_json(r, slos);
  EXPECT_DOUBLE_EQ(j.at("p90_ttft_ms").get<double>(), 280);
  EXPECT_DOUBLE_EQ(j.at("request_goodput").get<double>(), 0.5);
  EXPECT_EQ(j.at("failed").get<int>(), 1);
}

Trace three_requests() {
  Trace t;
  for (int i = 0; i < 3; ++i) {
    TraceRequest r;
    r.id = std::to_string(i);
    r.arrival_ns = 1'000'000'000 + i * 200'000'000;
    r.prompt_len = 5 + i;
    r.output_len = 7;
    t.requests.push_back(r);
  }
  return t;
}

TEST(Plan, TraceArrivalsAreScaledAndStartAtZero) {
  BenchConfig c;
  c.arrival_rate_scale = 2.0;
  const auto plan = plan_requests(three_requests(), c);
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].send_ns, 0);
  EXPECT_EQ(plan[2].send_ns, 200'000'000);
  c.num_requests = 2;
  EXPECT_EQ(plan_requests(three_requests(), c).size(), 2u);
}

TEST(Plan, PoissonIsSeededAndClosedLoopWraps) {
  BenchConfig c;
  c.arrivals = BenchConfig::Arrivals::kRate;
  c.request_rate = 10;
  c.num_requests = 1000;
  const auto a = plan_requests(three_requests(), c);
  const auto b = plan_requests(three_requests(), c);
  ASSERT_EQ(a.size(), 1000u);
  EXPECT_EQ(a.back().send_ns, b.back().send_ns);
  EXPECT_EQ(a[4].trace_index, 1u);
  // mean gap about 100 ms
  EXPECT_NEAR(static_cast<double>(a.back().send_ns) / 999 / 1e6, 100, 10);
  c.seed = 1;
  EXPECT_NE(plan_requests(three_requests(), c).back().send_ns, a.back().send_ns);
  c.arrivals = BenchConfig::Arrivals::kClosedLoop;
  const auto closed = plan_requests(three_requests(), c);
  EXPECT_EQ(closed.back().send_ns, 0);
}

TEST(Body, TokenIdPromptHasTheTraceLength) {
  BenchConfig c;
  TraceRequest r;
  r.prompt_len = 37;
  r.output_len = 9;
  const auto j = nlohmann::json::parse(build_request_body(r, c, "m", 0));
  EXPECT_EQ(j.at("model"), "m");
  EXPECT_EQ(j.at("prompt").size(), 37u);
  EXPECT_EQ(j.at("max_tokens"), 9);
  EXPECT_EQ(j.at("ignore_eos"), true);
  EXPECT_EQ(j.at("stream"), true);
  EXPECT_EQ(j.at("stream_options").at("include_usage"), true);
  // Different requests get different prompts (no accidental prefix caching) ...
  const auto k = nlohmann::json::parse(build_request_body(r, c, "m", 1));
  EXPECT_NE(j.at("prompt")[0], k.at("prompt")[0]);
  // ... unless the trace says they share a prefix.
  r.hash_block_size = 16;
  r.prefix_hash_ids = {5, 6, 7};
  const auto p = nlohmann::json::parse(build_request_body(r, c, "m", 0));
  const auto q = nlohmann::json::parse(build_request_body(r, c, "m", 1));
  for (int i = 0; i < 37; ++i) EXPECT_EQ(p.at("prompt")[i], q.at("prompt")[i]);
}

TEST(Body, APromptSaltSeparatesRunsButKeepsTheSharingInsideARun) {
  BenchConfig first, second;
  first.prompt_salt = 1;
  second.prompt_salt = 2;
  TraceRequest r;
  r.prompt_len = 40;
  r.hash_block_size = 16;
  r.prefix_hash_ids = {5, 6};  // positions 0..31 shared, 32..39 the request's own
  const auto a0 = nlohmann::json::parse(build_request_body(r, first, "m", 0)).at("prompt");
  const auto a1 = nlohmann::json::parse(build_request_body(r, first, "m", 1)).at("prompt");
  const auto b0 = nlohmann::json::parse(build_request_body(r, second, "m", 0)).at("prompt");
  const auto unsalted = nlohmann::json::parse(build_request_body(r, BenchConfig{}, "m", 0));
  int same_across_runs = 0;
  for (int i = 0; i < 40; ++i) {
    if (i < 32) {
      EXPECT_EQ(a0[i], a1[i]) << "position " << i;  // the trace's prefix, in a run
    }
    same_across_runs += a0[i] == b0[i];
  }
  EXPECT_NE(a0[39], a1[39]);
  EXPECT_LE(same_across_runs, 2);  // ids agree across salts only by chance
  EXPECT_NE(a0, unsalted.at("prompt"));
  // Salt 0 is the unsalted prompt of before (llmbench's default output does not change).
  BenchConfig zero;
  zero.prompt_salt = 0;
  EXPECT_EQ(nlohmann::json::parse(build_request_body(r, zero, "m", 0)), unsalted);
}

TEST(Body, ChatAndTextPrompts) {
  BenchConfig c;
  c.chat = true;
  c.stream = false;
  c.ignore_eos = false;
  TraceRequest r;
  r.prompt_len = 20;
  r.output_len = 3;
  const auto j = nlohmann::json::parse(build_request_body(r, c, "x\"y", 0));
  EXPECT_EQ(j.at("model"), "x\"y");
  const std::string text = j.at("messages")[0].at("content");
  EXPECT_EQ(std::count(text.begin(), text.end(), ' '), 19);
  EXPECT_EQ(j.at("stream"), false);
  EXPECT_FALSE(j.contains("stream_options"));
  EXPECT_FALSE(j.contains("ignore_eos"));
}

TEST(Cli, GoodFlags) {
  const CliOptions o = parse_args({"synthetic:n=5", "--base-url", "http://localhost:9000/api/",
                                   "--concurrency", "8", "--goodput", "ttft:500", "tpot:50",
                                   "--no-stream", "--model=llama", "--result-json", "r.json"});
  EXPECT_EQ(o.trace_path, "synthetic:n=5");
  EXPECT_EQ(o.config.host, "localhost");
  EXPECT_EQ(o.config.port, 9000);
  EXPECT_EQ(o.config.base_path, "/api");
  EXPECT_EQ(o.config.arrivals, BenchConfig::Arrivals::kClosedLoop);
  EXPECT_EQ(o.config.concurrency, 8);
  EXPECT_EQ(*o.config.slos.ttft_ms, 500);
  EXPECT_EQ(*o.config.slos.tpot_ms, 50);
  EXPECT_FALSE(o.config.stream);
  EXPECT_TRUE(o.config.token_ids);
  EXPECT_EQ(o.config.model, "llama");
  EXPECT_EQ(o.result_json, "r.json");
  const CliOptions chat = parse_args({"t.json", "--endpoint", "/v1/chat/completions"});
  EXPECT_TRUE(chat.config.chat);
  EXPECT_FALSE(chat.config.token_ids);
  EXPECT_EQ(chat.config.port, 8000);
}

TEST(Cli, BadFlagsNameTheFlag) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"t.json", "--concurrency", "0"}, "--concurrency"},
      {{"t.json", "--concurrency", "x"}, "--concurrency"},
      {{"t.json", "--request-rate", "-1"}, "--request-rate"},
      {{"t.json", "--frobnicate"}, "--frobnicate"},
      {{"t.json", "--base-url", "https://x"}, "--base-url"},
      {{"t.json", "--base-url", "http://x:99999"}, "--base-url"},
      {{"t.json", "--goodput", "ttft=5"}, "--goodput"},
      {{"t.json", "--goodput", "latency:5"}, "--goodput"},
      {{"t.json", "--model"}, "--model"},
      {{"t.json", "--endpoint", "/v1/chat/completions", "--token-ids"}, "--token-ids"},
      {{"t.json", "--concurrency", "2", "--request-rate", "3"}, "--concurrency"},
      {{"t.json", "--arrivals", "poisson"}, "--arrivals"},
      {{"--seed", "1"}, "TRACE"},
  };
  for (const auto& [args, flag] : cases) {
    try {
      parse_args(args);
      ADD_FAILURE() << "no error for " << args.back();
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(flag), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace llm::loadgen
