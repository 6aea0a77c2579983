// llmserve's command line (vLLM's flag names plus a few of ours) and its mapping to an engine
// configuration for the simulated backend (presets, KV capacity, vLLM's device-dependent defaults).
// The cpu backend's configuration comes from the model file instead
// (server/app/model_engine_setup.h). Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/sim/cost_model.h"
#include "core/engine_args.h"
#include "core/flag_values.h"
#include "core/scheduler_config.h"
#include "core/vllm_metrics.h"
#include "server/faults/fault_config.h"
#include "server/kv_events/kv_events_config.h"

namespace llm {

// --data-parallel-size's upper bound.
inline constexpr int32_t kMaxDataParallelSize = 64;

struct ServerOptions {
  std::string host = "0.0.0.0";
  int port = 8000;
  std::string backend = "sim";  // sim | cpu | cuda
  std::string tokenizer;        // --tokenizer: a real tokenizer (.gguf, tokenizer.json or dir)
  std::string chat_template;    // --chat-template: llama2 | llama3 | chatml ("" = the model's)
  // --kv-cache-memory-bytes: the cpu backend's KV budget when --num-gpu-blocks-override is unset.
  int64_t kv_cache_memory_bytes = int64_t{1} << 30;
  bool kv_cache_memory_bytes_given = false;  // cuda: the flag replaces --gpu-memory-utilization
  int32_t cpu_threads = 0;  // --cpu-threads: the cpu backend's GEMM threads (0 = all cores)
  // --served-model-name A [B ...] (vLLM's): responses, metrics and KV events carry the first
  // name; a request may name any of them. Default: --model.
  std::string served_model_name;
  std::vector<std::string> served_model_aliases;  // the names after the first
  std::string api_key;                            // --api-key or VLLM_API_KEY
  std::string metrics_api_key;                    // ours: protects /metrics too
  bool enable_per_request_metrics = false;
  bool disable_log_stats = false;  // also no stats lines
  // --log-stats-interval (VLLM_LOG_STATS_INTERVAL): seconds between vLLM's stats lines on stderr
  // (server/app/stats_logger.h).
  double log_stats_interval_s = 10.0;
  std::string port_file;  // --port-file: the listening port(s), written once listening
  bool enable_force_include_usage = false;
  bool enable_request_id_headers = false;
  // vLLM's --enable-prompt-tokens-details: usage.prompt_tokens_details.cached_tokens when the
  // prefix cache served part of the prompt.
  bool enable_prompt_tokens_details = false;
  // vLLM's --enable-sleep-mode: the sleep endpoints exist with it and VLLM_SERVER_DEV_MODE=1.
  bool enable_sleep_mode = false;
  EngineArgs engine;  // the engine arguments shared with llmsim (--gpu and --model included)
  int32_t data_parallel_size = 1;
  // Ours: engine i serves the whole API and its own /metrics on --port + i (one HTTP server per
  // engine, as N vLLM servers of data-parallel ranks would), instead of one port for all.
  bool data_parallel_separate_ports = false;
  uint64_t seed = 0;
  // Ours.
  double step_time_scale = 1.0;  // multiplies the modelled step time; 0 = zero-cost steps
  double shutdown_timeout_s = 30.0;
  std::string request_log;
  bool request_log_content = false;
  std::string step_log;  // --step-log: one StepRecord line per engine step
  int64_t max_request_body_bytes = 16 << 20;
  int64_t max_header_bytes = 16 << 10;
  double read_timeout_s = 60.0;
  int64_t max_connections = 4096;
  int32_t http_threads = 2;
  // --max-waiting-requests: refuse (503, Retry-After) completions while this many sequences wait
  // in the engines, all data-parallel engines together; -1 (the default) = no limit, as vLLM.
  int64_t max_waiting_requests = -1;
  // vLLM's --max-num-queued-reqs / --max-num-queued-tokens (core/admission_rule.h); -1 = none.
  int64_t max_num_queued_reqs = -1;
  int64_t max_num_queued_tokens = -1;
  // --kv-events-config: vLLM's KV-cache event publishing (server/kv_events/, docs/kv-events.md).
  KvEventsConfig kv_events;
  // OpenTelemetry traces (docs/tracing.md): vLLM's --otlp-traces-endpoint and
  // --collect-detailed-traces, and ours, --otlp-traces-include-content.
  std::string otlp_traces_endpoint;
  std::string collect_detailed_traces;  // "" or a list of model, worker, all, engine
  bool otlp_traces_include_content = false;
  // The test double (server/faults, docs/test-double.md): injected failures, latency and /health
  // schedule; the admin API that changes them at run time; the per-request fault headers.
  FaultConfig faults;
  bool failure_seed_given = false;  // else faults.seed is --seed
  bool enable_admin_api = false;
  bool enable_fault_headers = false;
  bool test_double() const { return faults.any() || enable_admin_api || enable_fault_headers; }
};

// Parses argv[1..] (without --help and --version: the caller checks wants_help and
// wants_version first). `env_api_key` is VLLM_API_KEY, `env_log_stats_interval`
// VLLM_LOG_STATS_INTERVAL (either may be null). Throws UsageError naming the flag.
ServerOptions parse_server_args(const std::vector<std::string>& args, const char* env_api_key,
                                const char* env_log_stats_interval = nullptr);
std::string server_usage();

struct EngineSetup {
  SchedulerConfig scheduler;
  Deployment deployment;
  CacheConfigInfo cache;
  std::string served_model_name;                  // the name responses and metrics carry
  std::vector<std::string> served_model_aliases;  // further names a request may send
  std::string model_root;                         // /v1/models' "root": --model, as vLLM's
};

// Resolves presets and defaults. Throws UsageError.
EngineSetup make_engine_setup(const ServerOptions& options);

// Fills the setup's served model names and model root from the options: --served-model-name's
// names, else `model_name` (the model path, or the profile's model when there is no --model).
void name_served_model(const ServerOptions& options, const std::string& model_name,
                       EngineSetup& setup);

}  // namespace llm
