#include "server/app/server_options.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/sim/presets.h"
#include "server/api/api_context.h"  // kAdmissionRetryAfterS

namespace llm {
namespace {

std::string options_error_of(const std::vector<std::string>& args, const char* env = nullptr) {
  try {
    parse_server_args(args, env);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ServerOptions, DefaultsAndVllmFlagNames) {
  const ServerOptions o = parse_server_args(
      {"--port", "0", "--served-model-name", "m", "--api-key=k", "--enable-per-request-metrics",
       "--enable-force-include-usage", "--enable-request-id-headers", "--max-num-seqs", "8",
       "--max-model-len", "4096", "--no-enable-prefix-caching", "--step-time-scale", "0"},
      nullptr);
  EXPECT_EQ(o.port, 0);
  EXPECT_EQ(o.served_model_name, "m");
  EXPECT_EQ(o.api_key, "k");
  EXPECT_TRUE(o.enable_per_request_metrics);
  EXPECT_FALSE(o.engine.enable_prefix_caching);
  const EngineSetup e = make_engine_setup(o);
  EXPECT_EQ(e.scheduler.max_num_seqs, 8);
  EXPECT_EQ(e.scheduler.max_model_len, 4096);
  EXPECT_GT(e.scheduler.num_gpu_blocks, 2);
  EXPECT_EQ(parse_server_args({}, nullptr).served_model_name, "Llama-3.1-8B");
  EXPECT_EQ(parse_server_args({}, nullptr).port, 8000);
}

TEST(ServerOptions, TokenizerChatTemplateAndCpuFlags) {
  const ServerOptions o =
      parse_server_args({"--backend", "cpu", "--model", "/m/model.gguf", "--tokenizer", "/t.gguf",
                         "--chat-template", "chatml", "--kv-cache-memory-bytes", "1000000",
                         "--cpu-threads", "2", "--num-gpu-blocks-override", "64"},
                        nullptr);
  EXPECT_EQ(o.backend, "cpu");
  EXPECT_EQ(o.engine.model, "/m/model.gguf");
  EXPECT_EQ(o.served_model_name, "/m/model.gguf");  // as vLLM: the model path
  EXPECT_EQ(o.tokenizer, "/t.gguf");
  EXPECT_EQ(o.chat_template, "chatml");
  EXPECT_EQ(o.kv_cache_memory_bytes, 1000000);
  EXPECT_EQ(o.cpu_threads, 2);
  EXPECT_EQ(o.engine.num_gpu_blocks_override, 64);
}

TEST(ServerOptions, KvCacheMemoryBytesIsMarkedGivenOnlyWhenGiven) {
  // --backend cuda sizes its cache from --gpu-memory-utilization unless the flag is given.
  EXPECT_FALSE(parse_server_args({"--backend", "cuda"}, nullptr).kv_cache_memory_bytes_given);
  const ServerOptions o =
      parse_server_args({"--backend", "cuda", "--kv-cache-memory=4096"}, nullptr);
  EXPECT_TRUE(o.kv_cache_memory_bytes_given);
  EXPECT_EQ(o.kv_cache_memory_bytes, 4096);
}

TEST(ServerOptions, ApiKeyFromTheEnvironmentUnlessTheFlagIsGiven) {
  EXPECT_EQ(parse_server_args({}, "envkey").api_key, "envkey");
  EXPECT_EQ(parse_server_args({"--api-key", "flag"}, "envkey").api_key, "flag");
}

TEST(ServerOptions, PerRequestMetricsWithDisableLogStatsIsRefusedNamingBothFlags) {
  const std::string e = options_error_of({"--enable-per-request-metrics", "--disable-log-stats"});
  EXPECT_NE(e.find("--enable-per-request-metrics"), std::string::npos) << e;
  EXPECT_NE(e.find("--disable-log-stats"), std::string::npos) << e;
}

TEST(ServerOptions, BadFlagsNameTheFlag) {
  EXPECT_NE(options_error_of({"--bogus"}).find("--bogus"), std::string::npos);
  EXPECT_NE(options_error_of({"--port", "x"}).find("--port"), std::string::npos);
  EXPECT_NE(options_error_of({"--max-num-seqs"}).find("--max-num-seqs: missing value"),
            std::string::npos);
  EXPECT_EQ(options_error_of({"--backend", "cuda"}), "");  // the device is probed at startup
  EXPECT_NE(options_error_of({"--backend", "tpu"}).find("--backend"), std::string::npos);
  EXPECT_EQ(options_error_of({"--backend", "cpu"}), "");
  EXPECT_NE(options_error_of({"--chat-template", "jinja"}).find("--chat-template"),
            std::string::npos);
  EXPECT_NE(options_error_of({"--kv-cache-memory-bytes", "0"}).find("--kv-cache-memory-bytes"),
            std::string::npos);
  EXPECT_NE(options_error_of({"--data-parallel-size", "0"}).find("--data-parallel-size"),
            std::string::npos);
  EXPECT_NE(options_error_of({"--data-parallel-size", "65"}).find("--data-parallel-size"),
            std::string::npos);
  EXPECT_EQ(options_error_of({"--data-parallel-size", "4"}), "");
  EXPECT_EQ(options_error_of({"--data-parallel-size", "1"}), "");
  try {
    ServerOptions o;
    o.engine.model = "NoSuchModel";
    make_engine_setup(o);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--model"), std::string::npos);
  }
}

// The test double's flags (docs/test-double.md): off by default; the failure seed is --seed
// unless given; bad values name their flag.
TEST(ServerOptions, TestDoubleFlags) {
  EXPECT_FALSE(parse_server_args({}, nullptr).test_double());
  const ServerOptions o = parse_server_args({"--seed",
                                             "9",
                                             "--failure-rate",
                                             "5%",
                                             "--failure-types",
                                             "rate_limit,server_error",
                                             "--inject-ttft",
                                             "200ms",
                                             "--inject-itl",
                                             "0.02s",
                                             "--inject-stall-after",
                                             "3",
                                             "--inject-stall",
                                             "1s",
                                             "--inject-cut-after",
                                             "7",
                                             "--startup-delay",
                                             "5s",
                                             "--health-flap-period",
                                             "10s",
                                             "--enable-admin-api",
                                             "--enable-fault-headers"},
                                            nullptr);
  EXPECT_TRUE(o.test_double());
  EXPECT_DOUBLE_EQ(o.faults.failure_rate, 0.05);
  EXPECT_EQ(o.faults.failure_types.size(), 2u);
  EXPECT_EQ(o.faults.seed, 9u);
  EXPECT_EQ(o.faults.ttft_ms, 200);
  EXPECT_EQ(o.faults.itl_ms, 20);
  EXPECT_EQ(o.faults.stall_after, 3);
  EXPECT_EQ(o.faults.stall_ms, 1000);
  EXPECT_EQ(o.faults.cut_after, 7);
  EXPECT_EQ(o.faults.startup_delay_ms, 5000);
  EXPECT_EQ(o.faults.health_flap_period_ms, 10000);
  EXPECT_TRUE(o.enable_admin_api);
  EXPECT_TRUE(o.enable_fault_headers);
  EXPECT_EQ(parse_server_args({"--failure-seed", "4", "--seed", "9"}, nullptr).faults.seed, 4u);
  EXPECT_TRUE(parse_server_args({"--enable-admin-api"}, nullptr).test_double());
  const struct {
    std::vector<std::string> args;
    const char* error;
  } bad[] = {
      {{"--failure-rate", "5"}, "--failure-rate: '5' is out of range (0 to 1, or 0% to 100%)"},
      {{"--failure-rate", "x"}, "--failure-rate: expected a fraction"},
      {{"--failure-types", "teapot"}, "--failure-types: unknown failure type 'teapot'"},
      {{"--inject-ttft", "200"}, "--inject-ttft: expected a duration such as 200ms or 1.5s"},
      {{"--startup-delay", "-1s"}, "--startup-delay: '-1s' is out of range"},
      {{"--inject-cut-after", "-1"}, "--inject-cut-after"},
      {{"--inject-stall-after", "2"}, "--inject-stall-after and --inject-stall go together"},
      {{"--inject-stall", "1s"}, "--inject-stall-after and --inject-stall go together"},
  };
  for (const auto& row : bad) {
    EXPECT_EQ(options_error_of(row.args).rfind(row.error, 0), 0u)
        << row.args[0] << ": " << options_error_of(row.args);
  }
}

// vLLM's --served-model-name takes one or more names: the first is what responses and metrics
// carry, the others are aliases a request may send; /v1/models' root is --model.
TEST(ServerOptions, ServedModelNameTakesSeveralNamesTheFirstServed) {
  const ServerOptions o = parse_server_args(
      {"--served-model-name", "first", "second", "third", "--port", "0"}, nullptr);
  EXPECT_EQ(o.served_model_name, "first");
  EXPECT_EQ(o.served_model_aliases, (std::vector<std::string>{"second", "third"}));
  EXPECT_EQ(o.port, 0);  // the list stops at the next flag
  const EngineSetup e = make_engine_setup(o);
  EXPECT_EQ(e.served_model_name, "first");
  EXPECT_EQ(e.served_model_aliases, (std::vector<std::string>{"second", "third"}));
  EXPECT_EQ(e.model_root, "Llama-3.1-8B");
  const ServerOptions one = parse_server_args({"--served-model-name=only"}, nullptr);
  EXPECT_EQ(one.served_model_name, "only");
  EXPECT_TRUE(one.served_model_aliases.empty());
  const EngineSetup plain = make_engine_setup(parse_server_args({}, nullptr));
  EXPECT_EQ(plain.served_model_name, "Llama-3.1-8B");
  EXPECT_TRUE(plain.served_model_aliases.empty());
  EXPECT_EQ(plain.model_root, "Llama-3.1-8B");
  EXPECT_NE(options_error_of({"--served-model-name"}).find("--served-model-name"),
            std::string::npos);
  EXPECT_NE(options_error_of({"--served-model-name", "--port", "0"}).find("--served-model-name"),
            std::string::npos);
  EXPECT_NE(options_error_of({"--served-model-name="}).find("--served-model-name: empty name"),
            std::string::npos);
}

TEST(ServerOptions, MaxWaitingRequestsIsUnlimitedByDefaultAndTakesACountFromZero) {
  struct Row {
    std::vector<std::string> args;
    int64_t want;       // the parsed value when `error` is empty
    std::string error;  // a substring of the UsageError
  };
  const Row rows[] = {
      {{}, -1, ""},
      {{"--max-waiting-requests", "0"}, 0, ""},
      {{"--max-waiting-requests", "1"}, 1, ""},
      {{"--max-waiting-requests=256"}, 256, ""},
      {{"--max-waiting-requests", "9223372036854775807"}, INT64_MAX, ""},
      {{"--max-waiting-requests", "-1"}, 0, "--max-waiting-requests: must be at least 0, got -1"},
      {{"--max-waiting-requests", "x"}, 0, "--max-waiting-requests: expected an integer, got 'x'"},
      {{"--max-waiting-requests", "1.5"}, 0, "--max-waiting-requests: expected an integer"},
      {{"--max-waiting-requests"}, 0, "--max-waiting-requests: missing value"},
  };
  for (const Row& row : rows) {
    std::string args;
    for (const std::string& a : row.args) args += a + " ";
    if (row.error.empty()) {
      EXPECT_EQ(parse_server_args(row.args, nullptr).max_waiting_requests, row.want) << args;
    } else {
      EXPECT_NE(options_error_of(row.args).find(row.error), std::string::npos)
          << args << ": " << options_error_of(row.args);
    }
  }
  EXPECT_NE(server_usage().find("--max-waiting-requests N"), std::string::npos);
  EXPECT_NE(server_usage().find("Retry-After: " + std::to_string(kAdmissionRetryAfterS)),
            std::string::npos);
}

TEST(ServerOptions, GatewayFlagsOfIssue13) {
  const ServerOptions off = parse_server_args({}, nullptr);
  EXPECT_FALSE(off.data_parallel_separate_ports);
  EXPECT_FALSE(off.enable_prompt_tokens_details);
  const ServerOptions on =
      parse_server_args({"--data-parallel-size", "4", "--data-parallel-separate-ports", "--port",
                         "65532", "--enable-prompt-tokens-details"},
                        nullptr);
  EXPECT_TRUE(on.data_parallel_separate_ports);
  EXPECT_TRUE(on.enable_prompt_tokens_details);
  // Engine 3 would listen on 65536.
  EXPECT_EQ(options_error_of(
                {"--data-parallel-size", "4", "--data-parallel-separate-ports", "--port", "65533"}),
            "--data-parallel-separate-ports: --port 65533 + --data-parallel-size 4 - 1 is past "
            "65535");
  EXPECT_NE(options_error_of({"--data-parallel-separate-ports=yes"}), "");
}

}  // namespace
}  // namespace llm

namespace llm {
namespace {

// `llmserve MODEL`, as `vllm serve MODEL`: the same as --model, which it may repeat but not
// contradict.
TEST(ServerOptions, APositionalModelIsTheModel) {
  const ServerOptions o = parse_server_args({"Llama-3.2-1B", "--port", "0"}, nullptr);
  EXPECT_EQ(o.engine.model, "Llama-3.2-1B");
  EXPECT_EQ(o.served_model_name, "Llama-3.2-1B");
  EXPECT_TRUE(o.engine.gpu_or_model_given);
  EXPECT_EQ(make_engine_setup(o).deployment.model.name, "Llama-3.2-1B");
  EXPECT_EQ(parse_server_args({"--model", "Qwen3-8B", "Qwen3-8B"}, nullptr).engine.model,
            "Qwen3-8B");
  EXPECT_EQ(options_error_of({"Qwen3-8B", "--model", "Llama-3.2-1B"}),
            "MODEL 'Qwen3-8B' and --model 'Llama-3.2-1B' differ: give the model once");
  EXPECT_EQ(options_error_of({"Qwen3-8B", "Llama-3.2-1B"}),
            "unexpected argument 'Llama-3.2-1B': the model is already 'Qwen3-8B'");
  // A positional model is --model for --profile's rule too.
  EXPECT_EQ(options_error_of({"Qwen3-8B", "--profile", "p.json"}), "");
  EXPECT_THROW(make_engine_setup(parse_server_args({"Qwen3-8B", "--profile", "p.json"}, nullptr)),
               UsageError);
}

TEST(ServerOptions, HelpListsTheGpuAndModelPresets) {
  const std::string usage = server_usage();
  for (const std::vector<std::string>& names : {gpu_preset_names(), model_preset_names()}) {
    ASSERT_FALSE(names.empty());
    for (const std::string& name : names) {
      EXPECT_NE(usage.find(" " + name + (name == names.back() ? "\n" : ",")), std::string::npos)
          << name;
    }
  }
}

TEST(ServerOptions, StatsIntervalAndPortFile) {
  EXPECT_EQ(parse_server_args({}, nullptr).log_stats_interval_s, 10.0);  // vLLM's default
  EXPECT_EQ(parse_server_args({}, nullptr, "2.5").log_stats_interval_s, 2.5);
  EXPECT_EQ(parse_server_args({"--log-stats-interval", "0.5"}, nullptr, "2.5").log_stats_interval_s,
            0.5);
  EXPECT_EQ(options_error_of({"--log-stats-interval", "0"}),
            "--log-stats-interval: must be greater than 0, got 0");
  EXPECT_EQ(parse_server_args({"--port-file", "p"}, nullptr).port_file, "p");
  EXPECT_EQ(options_error_of({"--port-file", ""}), "--port-file: empty path");
  try {
    parse_server_args({}, nullptr, "soon");
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "VLLM_LOG_STATS_INTERVAL: expected a number, got 'soon'");
  }
}

}  // namespace
}  // namespace llm
