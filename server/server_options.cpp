#include "server/server_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "backends/model/chat_template.h"
#include "backends/sim/engine_args.h"
#include "core/flag_values.h"

namespace llm {

std::string server_usage() {
  return R"(usage: llmserve [flags]

Server (vLLM's names):
  --host HOST                      address to listen on (0.0.0.0)
  --port N                         port (8000; 0 picks a free one)
  --served-model-name NAME         the model name clients send (default: --model)
  --api-key KEY                    require "Authorization: Bearer KEY" under /v1 (env VLLM_API_KEY)
  --enable-per-request-metrics     add the `metrics` object to responses
  --disable-log-stats              no Prometheus metrics collection
  --enable-force-include-usage     always send the final usage chunk when streaming
  --enable-request-id-headers      echo X-Request-Id in responses
)" + engine_flags_usage() +
         R"(  --data-parallel-size N           engines, each with its own backend and KV cache (1); a
                                   request goes to the one with the fewest unfinished requests
  --seed N                         sim: the output-token seed (0); cpu: mixed into the per-request
                                   seeds of requests that send no "seed"
Backend:
  --backend sim|cpu|cuda           sim (default: the simulated GPU), cpu (fp32 reference on this
                                   machine; --model is then a .gguf file or a safetensors dir)
  --tokenizer PATH                 a real tokenizer (.gguf, tokenizer.json or its dir): with sim,
                                   prompt counts and output text come from it (default for cpu:
                                   --model)
  --chat-template llama2|llama3|chatml  chat prompt format (default: from the model's metadata)
  --kv-cache-memory-bytes N        cpu: KV cache budget when --num-gpu-blocks-override is unset
                                   (1073741824)
  --cpu-threads N                  cpu: GEMM worker threads in all, shared by the engines
                                   of --data-parallel-size (0 = all cores)
  --step-time-scale F              multiply the modelled step time (1; 0 = zero-cost steps)
Operations (ours):
  --shutdown-timeout S             on SIGTERM/SIGINT, let requests finish this long (30)
  --request-log FILE               JSON lines, one per request (no text unless the next flag)
  --request-log-content            include prompt and completion text in the request log
  --metrics-api-key KEY            require "Authorization: Bearer KEY" on /metrics
  --max-request-body-bytes N       larger bodies get 413 (16777216)
  --max-header-bytes N             larger headers get 431 (16384)
  --read-timeout S                 close idle connections; 408 to requests this slow (60)
  --max-connections N              more open connections get 503 (4096)
  --http-threads N                 I/O threads (2)
)";
}

namespace {

ServerOptions parse_server_args_unchecked(const std::vector<std::string>& args,
                                          const char* env_api_key) {
  ServerOptions o;
  EngineFlagParser engine;
  if (env_api_key && *env_api_key) o.api_key = env_api_key;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool inline_value = false;
    if (flag.rfind("--", 0) != 0) throw FlagError("unexpected argument '" + flag + "'");
    if (auto eq = flag.find('='); eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      inline_value = true;
    }
    auto next = [&]() -> std::string {
      if (inline_value) return value;
      if (i + 1 >= args.size()) throw FlagError(flag + ": missing value");
      return args[++i];
    };
    auto no_value = [&] {
      if (inline_value) throw FlagError(flag + ": takes no value");
    };
    if (engine.parse(flag, next, no_value)) continue;
    if (flag == "--help" || flag == "-h") {
      throw FlagError(server_usage());
    } else if (flag == "--host") {
      o.host = next();
    } else if (flag == "--port") {
      o.port = static_cast<int>(parse_int_flag(flag, next(), 0));
      if (o.port > 65535) throw FlagError("--port: must be at most 65535");
    } else if (flag == "--backend") {
      o.backend = next();
    } else if (flag == "--tokenizer") {
      o.tokenizer = next();
      if (o.tokenizer.empty()) throw FlagError("--tokenizer: empty path");
    } else if (flag == "--chat-template") {
      o.chat_template = next();
      if (!parse_chat_template_name(o.chat_template)) {
        throw FlagError("--chat-template: expected llama2, llama3 or chatml, got '" +
                        o.chat_template + "'");
      }
    } else if (flag == "--kv-cache-memory-bytes" || flag == "--kv-cache-memory") {
      o.kv_cache_memory_bytes = parse_int_flag(flag, next(), 1);
    } else if (flag == "--cpu-threads") {
      o.cpu_threads = static_cast<int32_t>(parse_int_flag(flag, next(), 0));
    } else if (flag == "--served-model-name") {
      o.served_model_name = next();
    } else if (flag == "--api-key") {
      o.api_key = next();
    } else if (flag == "--metrics-api-key") {
      o.metrics_api_key = next();
    } else if (flag == "--enable-per-request-metrics") {
      no_value();
      o.enable_per_request_metrics = true;
    } else if (flag == "--disable-log-stats") {
      no_value();
      o.disable_log_stats = true;
    } else if (flag == "--enable-force-include-usage") {
      no_value();
      o.enable_force_include_usage = true;
    } else if (flag == "--enable-request-id-headers") {
      no_value();
      o.enable_request_id_headers = true;
    } else if (flag == "--data-parallel-size") {
      o.data_parallel_size = static_cast<int32_t>(parse_int_flag(flag, next(), 1));
    } else if (flag == "--seed") {
      o.seed = static_cast<uint64_t>(parse_int_flag(flag, next(), 0));
    } else if (flag == "--step-time-scale") {
      o.step_time_scale = parse_double_flag(flag, next(), 0.0);
    } else if (flag == "--shutdown-timeout") {
      o.shutdown_timeout_s = parse_double_flag(flag, next(), 0.0);
    } else if (flag == "--request-log") {
      o.request_log = next();
    } else if (flag == "--request-log-content") {
      no_value();
      o.request_log_content = true;
    } else if (flag == "--max-request-body-bytes") {
      o.max_request_body_bytes = parse_int_flag(flag, next(), 1);
    } else if (flag == "--max-header-bytes") {
      o.max_header_bytes = parse_int_flag(flag, next(), 256);
    } else if (flag == "--read-timeout") {
      o.read_timeout_s = parse_double_flag(flag, next(), 0.001);
    } else if (flag == "--max-connections") {
      o.max_connections = parse_int_flag(flag, next(), 1);
    } else if (flag == "--http-threads") {
      o.http_threads = static_cast<int32_t>(parse_int_flag(flag, next(), 1));
    } else {
      throw FlagError("unknown flag " + flag + " (see --help)");
    }
  }
  if (o.enable_per_request_metrics && o.disable_log_stats) {
    throw FlagError(
        "--enable-per-request-metrics requires statistics logging: it cannot be used with "
        "--disable-log-stats");
  }
  if (o.backend == "cuda") {
    throw FlagError(
        "--backend cuda: not built in this session (the CUDA backend is a later issue; use "
        "--backend cpu for real tokens or --backend sim)");
  }
  if (o.backend != "sim" && o.backend != "cpu")
    throw FlagError("--backend: expected sim, cpu or cuda, got '" + o.backend + "'");
  if (o.data_parallel_size > 64) {
    throw FlagError("--data-parallel-size " + std::to_string(o.data_parallel_size) +
                    ": at most 64 engines");
  }
  o.engine = engine.args();
  if (o.served_model_name.empty()) o.served_model_name = o.engine.model;
  return o;
}

}  // namespace

ServerOptions parse_server_args(const std::vector<std::string>& args, const char* env_api_key) {
  try {
    return parse_server_args_unchecked(args, env_api_key);
  } catch (const std::invalid_argument& e) {
    throw FlagError(e.what());
  }
}

EngineSetup make_engine_setup(const ServerOptions& o) {
  EngineSetup e;
  try {
    ResolvedEngine engine = resolve_engine_args(o.engine);
    e.scheduler = engine.scheduler;
    e.deployment = engine.deployment;
  } catch (const std::invalid_argument& ex) {
    throw FlagError(ex.what());
  }
  const SchedulerConfig& s = e.scheduler;
  e.cache.block_size = s.block_size;
  e.cache.num_gpu_blocks = s.num_gpu_blocks;
  e.cache.cache_dtype = o.engine.kv_cache_dtype;
  e.cache.enable_prefix_caching = s.enable_prefix_caching;
  e.cache.gpu_memory_utilization = o.engine.gpu_memory_utilization;
  e.served_model_name = o.served_model_name.empty() ? o.engine.model : o.served_model_name;
  return e;
}

}  // namespace llm
