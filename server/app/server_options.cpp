#include "server/app/server_options.h"

#include <algorithm>

#include "backends/sim/presets.h"
#include "backends/sim/resolve_engine_args.h"
#include "core/engine_args.h"
#include "core/flag_set.h"

namespace llm {

std::string server_usage() {
  return R"(usage: llmserve [MODEL] [flags]

MODEL is the same as --model (as in `vllm serve MODEL`): a preset or shape of the simulated
backend, or a model file with --backend cpu or cuda.
  --version                        the version, the commit and whether CUDA is built in

Server (vLLM's names):
  --host HOST                      address to listen on (0.0.0.0)
  --port N                         port (8000; 0 picks a free one)
  --served-model-name NAME [NAME ...]
                                   the model names clients may send (default: --model);
                                   responses and metrics carry the first
  --api-key KEY                    require "Authorization: Bearer KEY" under /v1 (env VLLM_API_KEY)
  --enable-per-request-metrics     add the `metrics` object to responses
  --disable-log-stats              no Prometheus metrics collection and no stats lines
  --enable-force-include-usage     always send the final usage chunk when streaming
  --enable-request-id-headers      echo X-Request-Id in responses
  --kv-events-config JSON          publish KV-cache events over ZeroMQ for prefix-aware routers
                                   (vLLM's JSON, e.g. '{"enable_kv_cache_events":true,
                                   "endpoint":"tcp://*:5557"}'; docs/kv-events.md)
  --enable-prompt-tokens-details   usage.prompt_tokens_details: cached_tokens (prefix-cache
                                   hit) and created_cache_tokens (written into the cache)
  --enable-sleep-mode              with env VLLM_SERVER_DEV_MODE=1: POST /sleep, POST /wake_up,
                                   GET /is_sleeping and the vllm:engine_sleep_state gauge
)" + engine_flags_usage(gpu_preset_names(), model_preset_names()) +
         R"(  --data-parallel-size N           engines, each with its own backend and KV cache (1); a
                                   request goes to the one with the fewest unfinished requests
  --data-parallel-separate-ports   engine i serves the whole API and its own /metrics on
                                   --port + i (with --port 0: a free port each), so that a
                                   gateway sees N endpoints
  --seed N                         sim: the output-token and step-noise seed (0); cpu: mixed
                                   into the per-request seeds of requests that send no "seed"
Backend:
  --backend sim|cpu|cuda           sim (default: the simulated GPU), cpu (fp32 reference on this
                                   machine; --model is then a .gguf file or a safetensors dir),
                                   cuda (bf16 on the GPU, same --model; docs/cuda.md; exits 2
                                   when there is no usable GPU)
  --tokenizer PATH                 a real tokenizer (.gguf, tokenizer.json or its dir): with sim,
                                   prompt counts and output text come from it (default for cpu:
                                   --model)
  --chat-template llama2|llama3|chatml  chat prompt format (default: from the model's metadata)
  --kv-cache-memory-bytes N        cpu: KV cache budget when --num-gpu-blocks-override is unset
                                   (1073741824); cuda: replaces --gpu-memory-utilization's share
  --cpu-threads N                  cpu: GEMM worker threads in all, shared by the engines
                                   of --data-parallel-size (0 = all cores)
  --step-time-scale F              multiply the modelled step time (1; 0 = zero-cost steps)
Operations (ours):
  --log-stats-interval S           seconds between vLLM's stats lines on stderr ("Engine 000: Avg
                                   prompt throughput: ..."; 10, or VLLM_LOG_STATS_INTERVAL)
  --port-file PATH                 once listening, write the port (one line per port with
                                   --data-parallel-separate-ports) to PATH, atomically: for
                                   scripts that start llmserve with --port 0
  --shutdown-timeout S             on SIGTERM/SIGINT, let requests finish this long (30)
  --request-log FILE               JSON lines, one per request (no text unless the next flag)
  --request-log-content            include prompt and completion text in the request log
  --step-log FILE                  JSON lines, one per engine step: the batch's shape and its
                                   measured time (for llmsim price-steps)
  --metrics-api-key KEY            require "Authorization: Bearer KEY" on /metrics
  --max-request-body-bytes N       larger bodies get 413 (16777216)
  --max-header-bytes N             larger headers get 431 (16384)
  --read-timeout S                 close idle connections; 408 to requests this slow (60)
  --max-connections N              more open connections get 503 (4096)
  --max-waiting-requests N         while N sequences wait in the engines (all of them together),
                                   new completions get 503 with Retry-After: 1 and count in
                                   vllm:admission_rejections_total (default: no limit)
  --max-num-queued-reqs N          vLLM's cap: 503 when the unfinished sequences (waiting and
                                   running, all engines) plus the request's would exceed N
  --max-num-queued-tokens N        vLLM's cap: 503 while the prompt tokens of sequences still in
                                   prefill are N or more (docs/metrics.md, admission control)
  --http-threads N                 I/O threads (2)
Tracing (docs/tracing.md):
  --otlp-traces-endpoint URL       export an llm_request span per request over OTLP/HTTP to URL
                                   (/v1/traces appended when URL has no path; env
                                   OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, protocol, headers, ...)
  --collect-detailed-traces LIST   model|worker|all|engine (any): child spans for queueing,
                                   each prefill chunk and each preemption
  --otlp-traces-include-content    add prompt and completion text to spans as events (off: no
                                   text leaves the server in traces)
Test double (docs/test-double.md; off by default):
  --failure-rate P                 fail this share of generation requests: a fraction (0.05) or
                                   a percentage (5%)
  --failure-types LIST             rate_limit,server_error,context_length,invalid_request,
                                   model_not_found,invalid_api_key (429, 500, 400, 400, 404, 401;
                                   default: all)
  --failure-seed N                 which requests fail, and with what (default: --seed)
  --inject-ttft D                  add D (200ms, 1.5s) before a stream's first event
  --inject-itl D                   add D before each further event (cumulative)
  --inject-stall-after N           after N events, stop sending for --inject-stall
  --inject-stall D                 the stall's length (with --inject-stall-after)
  --inject-cut-after N             after N events, close the connection mid-stream
  --startup-delay D                /health answers 503 for D after the start
  --health-flap-period D           then alternates: ready for D, 503 for D
  --enable-admin-api               GET/POST/DELETE /admin/faults change the above at run time
                                   (behind --api-key when set)
  --enable-fault-headers           honour X-Return-Error: STATUS and X-Fault-TTFT, -ITL,
                                   -Stall-After, -Stall, -Cut-After on each request
)";
}

namespace {

// The usage's "Server" group (vLLM's names), the engine flags aside. --served-model-name's names
// go to `served_names`.
void add_server_flags(FlagSet& flags, ServerOptions& o, std::vector<std::string>& served_names) {
  flags.text({"--host"}, o.host)
      .integer({"--port"}, o.port, 0, 65535)
      .list(
          "--served-model-name", [](const std::string& a) { return a.rfind('-', 0) != 0; },
          [&served_names](const std::string& flag, const std::string& name) {
            if (name.empty()) throw UsageError(flag + ": empty name");
            served_names.push_back(name);
          },
          "model names")
      .text({"--api-key"}, o.api_key)
      .boolean({"--enable-per-request-metrics"}, o.enable_per_request_metrics)
      .boolean({"--disable-log-stats"}, o.disable_log_stats)
      .boolean({"--enable-force-include-usage"}, o.enable_force_include_usage)
      .boolean({"--enable-request-id-headers"}, o.enable_request_id_headers)
      .value({"--kv-events-config"},
             [&o](const std::string& flag, const std::string& v) {
               o.kv_events = parse_kv_events_config(v, flag);
             })
      .boolean({"--enable-prompt-tokens-details"}, o.enable_prompt_tokens_details)
      .boolean({"--enable-sleep-mode"}, o.enable_sleep_mode)
      .integer({"--data-parallel-size"}, o.data_parallel_size, 1, kMaxDataParallelSize)
      .boolean({"--data-parallel-separate-ports"}, o.data_parallel_separate_ports)
      .integer({"--seed"}, o.seed, 0);
}

// The usage's "Backend" group.
void add_backend_flags(FlagSet& flags, ServerOptions& o) {
  flags.choice({"--backend"}, o.backend, {"sim", "cpu", "cuda"})
      .nonempty({"--tokenizer"}, o.tokenizer)
      .value({"--chat-template"},
             [&o](const std::string& flag, const std::string& v) {
               o.chat_template = parse_choice_flag(flag, v, {"llama2", "llama3", "chatml"});
             })
      .value({"--kv-cache-memory-bytes", "--kv-cache-memory"},
             [&o](const std::string& flag, const std::string& v) {
               o.kv_cache_memory_bytes = parse_int_flag(flag, v, 1, INT64_MAX);
               o.kv_cache_memory_bytes_given = true;
             })
      .integer({"--cpu-threads"}, o.cpu_threads, 0)
      .number({"--step-time-scale"}, o.step_time_scale, 0.0);
}

// The usage's "Operations" group: logs, limits and admission caps.
void add_operations_flags(FlagSet& flags, ServerOptions& o) {
  flags
      .value({"--log-stats-interval"},
             [&o](const std::string& flag, const std::string& v) {
               o.log_stats_interval_s = parse_double_above_flag(flag, v, 0);
             })
      .nonempty({"--port-file"}, o.port_file)
      .number({"--shutdown-timeout"}, o.shutdown_timeout_s, 0.0)
      .text({"--request-log"}, o.request_log)
      .boolean({"--request-log-content"}, o.request_log_content)
      .text({"--step-log"}, o.step_log)
      .text({"--metrics-api-key"}, o.metrics_api_key)
      .integer({"--max-request-body-bytes"}, o.max_request_body_bytes, 1)
      .integer({"--max-header-bytes"}, o.max_header_bytes, 256)
      .number({"--read-timeout"}, o.read_timeout_s, 0.001)
      .integer({"--max-connections"}, o.max_connections, 1)
      .integer({"--max-waiting-requests"}, o.max_waiting_requests, 0)
      .integer({"--max-num-queued-reqs"}, o.max_num_queued_reqs, 0)
      .integer({"--max-num-queued-tokens"}, o.max_num_queued_tokens, 0)
      .integer({"--http-threads"}, o.http_threads, 1);
}

// The usage's "Tracing" group.
void add_tracing_flags(FlagSet& flags, ServerOptions& o) {
  flags.nonempty({"--otlp-traces-endpoint"}, o.otlp_traces_endpoint)
      .value({"--collect-detailed-traces"},
             [&o](const std::string& flag, const std::string& v) {
               check_detailed_traces_flag(flag, v);
               o.collect_detailed_traces = v;
             })
      .boolean({"--otlp-traces-include-content"}, o.otlp_traces_include_content);
}

// A flag whose value is a duration (200ms, 1.5s) stored in milliseconds at `out`.
void add_duration_ms_flag(FlagSet& flags, const char* name, int64_t& out) {
  flags.value({name}, [&out](const std::string& flag, const std::string& v) {
    out = parse_duration_ms(flag, v);
  });
}

// The usage's "Test double" group (server/faults/).
void add_test_double_flags(FlagSet& flags, ServerOptions& o) {
  flags
      .value({"--failure-rate"},
             [&o](const std::string& flag, const std::string& v) {
               o.faults.failure_rate = parse_failure_rate(flag, v);
             })
      .value({"--failure-types"},
             [&o](const std::string& flag, const std::string& v) {
               o.faults.failure_types = parse_failure_types(flag, v);
             })
      .value({"--failure-seed"},
             [&o](const std::string& flag, const std::string& v) {
               o.faults.seed = parse_uint_flag(flag, v);
               o.failure_seed_given = true;
             })
      .integer({"--inject-stall-after"}, o.faults.stall_after, 0)
      .integer({"--inject-cut-after"}, o.faults.cut_after, 0)
      .boolean({"--enable-admin-api"}, o.enable_admin_api)
      .boolean({"--enable-fault-headers"}, o.enable_fault_headers);
  add_duration_ms_flag(flags, "--inject-ttft", o.faults.ttft_ms);
  add_duration_ms_flag(flags, "--inject-itl", o.faults.itl_ms);
  add_duration_ms_flag(flags, "--inject-stall", o.faults.stall_ms);
  add_duration_ms_flag(flags, "--startup-delay", o.faults.startup_delay_ms);
  add_duration_ms_flag(flags, "--health-flap-period", o.faults.health_flap_period_ms);
}

void check_stall_flags(const ServerOptions& o) {
  if ((o.faults.stall_after >= 0) != (o.faults.stall_ms > 0)) {
    throw UsageError(
        "--inject-stall-after and --inject-stall go together: a stall needs both where it starts "
        "(events) and how long it lasts");
  }
}

// The checks across the server's flags, after every flag was read.
void check_server_flags(const ServerOptions& o) {
  if (o.enable_per_request_metrics && o.disable_log_stats) {
    throw UsageError(
        "--enable-per-request-metrics requires statistics logging: it cannot be used with "
        "--disable-log-stats");
  }
  if (o.data_parallel_separate_ports && o.port > 0 && o.port + o.data_parallel_size - 1 > 65535) {
    throw UsageError("--data-parallel-separate-ports: --port " + std::to_string(o.port) +
                     " + --data-parallel-size " + std::to_string(o.data_parallel_size) +
                     " - 1 is past 65535");
  }
}

}  // namespace

ServerOptions parse_server_args(const std::vector<std::string>& args, const char* env_api_key,
                                const char* env_log_stats_interval) {
  ServerOptions o;
  if (env_api_key && *env_api_key) o.api_key = env_api_key;
  if (env_log_stats_interval && *env_log_stats_interval) {
    o.log_stats_interval_s =
        parse_double_above_flag("VLLM_LOG_STATS_INTERVAL", env_log_stats_interval, 0);
  }
  std::vector<std::string> served_names;
  std::string positional_model;
  EngineFlagParser engine;
  FlagSet flags("llmserve");
  engine.add_to(flags);
  flags.positional([&positional_model](const std::string& argument) {
    if (!positional_model.empty()) {
      throw UsageError("unexpected argument '" + argument + "': the model is already '" +
                       positional_model + "'");
    }
    positional_model = argument;
  });
  add_server_flags(flags, o, served_names);
  add_backend_flags(flags, o);
  add_operations_flags(flags, o);
  add_tracing_flags(flags, o);
  add_test_double_flags(flags, o);
  flags.parse(args);
  check_stall_flags(o);
  if (!o.failure_seed_given) o.faults.seed = o.seed;
  if (!positional_model.empty()) engine.set_positional_model(positional_model);
  check_server_flags(o);
  o.engine = engine.args();
  if (!served_names.empty()) {
    o.served_model_name = served_names.front();
    o.served_model_aliases.assign(served_names.begin() + 1, served_names.end());
  } else if (o.engine.profile.empty()) {
    o.served_model_name = o.engine.model;
  }
  return o;
}

EngineSetup make_engine_setup(const ServerOptions& o) {
  EngineSetup e;
  ResolvedEngine engine = resolve_engine_args(o.engine);
  e.scheduler = engine.scheduler;
  e.deployment = engine.deployment;
  e.cache = cache_config_info(e.scheduler, engine.kv_cache_dtype, o.engine.gpu_memory_utilization,
                              o.engine.num_gpu_blocks_override);
  name_served_model(o, engine.model_name, e);
  return e;
}

void name_served_model(const ServerOptions& o, const std::string& model_name, EngineSetup& e) {
  e.served_model_name = o.served_model_name.empty() ? model_name : o.served_model_name;
  e.served_model_aliases = o.served_model_aliases;
  e.model_root = o.engine.model.empty() ? model_name : o.engine.model;
}

}  // namespace llm
