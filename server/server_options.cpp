#include "server/server_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "backends/sim/engine_args.h"

namespace llm {
namespace {

int64_t parse_int(const std::string& flag, const std::string& text, int64_t min_value) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw FlagError(flag + ": expected an integer, got '" + text + "'");
  }
  if (value < min_value) {
    throw FlagError(flag + ": must be at least " + std::to_string(min_value) + ", got " + text);
  }
  return value;
}

double parse_double(const std::string& flag, const std::string& text, double min_value) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    throw FlagError(flag + ": expected a number, got '" + text + "'");
  }
  if (value < min_value) {
    throw FlagError(flag + ": must be at least " + std::to_string(min_value) + ", got " + text);
  }
  return value;
}

}  // namespace

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
Engine (shared with llmsim):
  --max-num-seqs N  --max-num-batched-tokens N  --max-model-len N  --block-size N
  --gpu-memory-utilization F  --kv-cache-dtype DTYPE  --num-gpu-blocks-override N
  --enable-prefix-caching | --no-enable-prefix-caching  --data-parallel-size 1  --seed N
Backend:
  --backend sim|cpu|cuda           (sim; the others are not built yet)
  --gpu NAME|FILE.json             GPU preset for the sim backend (H200)
  --model NAME|FILE.json           model preset for the sim backend (Llama-3.1-8B)
  --step-time-scale F              multiply the modelled step time (1; 0 = zero-cost steps)
Operations (ours):
  --shutdown-timeout S             on SIGTERM/SIGINT, let requests finish this long (30)
  --request-log FILE               JSON lines, one per request (no text unless the next flag)
  --request-log-content            include prompt and completion text in the request log
  --metrics-api-key KEY            require "Authorization: Bearer KEY" on /metrics
  --max-request-body-bytes N       larger bodies get 413 (16777216)
  --max-header-bytes N             larger headers get 431 (16384)
  --read-timeout S                 close connections idle or slow for this long (60)
  --max-connections N              more open connections get 503 (4096)
  --http-threads N                 I/O threads (2)
)";
}

ServerOptions parse_server_args(const std::vector<std::string>& args, const char* env_api_key) {
  ServerOptions o;
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
    if (flag == "--help" || flag == "-h") {
      throw FlagError(server_usage());
    } else if (flag == "--host") {
      o.host = next();
    } else if (flag == "--port") {
      o.port = static_cast<int>(parse_int(flag, next(), 0));
      if (o.port > 65535) throw FlagError("--port: must be at most 65535");
    } else if (flag == "--backend") {
      o.backend = next();
    } else if (flag == "--gpu") {
      o.gpu = next();
    } else if (flag == "--model") {
      o.model = next();
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
    } else if (flag == "--max-num-seqs") {
      o.max_num_seqs = static_cast<int32_t>(parse_int(flag, next(), 1));
    } else if (flag == "--max-num-batched-tokens") {
      o.max_num_batched_tokens = parse_int(flag, next(), 1);
    } else if (flag == "--block-size") {
      o.block_size = static_cast<int32_t>(parse_int(flag, next(), 1));
    } else if (flag == "--max-model-len") {
      o.max_model_len = parse_int(flag, next(), 2);
    } else if (flag == "--gpu-memory-utilization") {
      o.gpu_memory_utilization = parse_double(flag, next(), 0.0);
      if (o.gpu_memory_utilization <= 0 || o.gpu_memory_utilization > 1) {
        throw FlagError("--gpu-memory-utilization: must be in (0, 1]");
      }
    } else if (flag == "--kv-cache-dtype") {
      o.kv_cache_dtype = next();
    } else if (flag == "--enable-prefix-caching") {
      no_value();
      o.enable_prefix_caching = true;
    } else if (flag == "--no-enable-prefix-caching") {
      no_value();
      o.enable_prefix_caching = false;
    } else if (flag == "--num-gpu-blocks-override") {
      o.num_gpu_blocks_override = parse_int(flag, next(), 2);
    } else if (flag == "--data-parallel-size") {
      o.data_parallel_size = static_cast<int32_t>(parse_int(flag, next(), 1));
    } else if (flag == "--seed") {
      o.seed = static_cast<uint64_t>(parse_int(flag, next(), 0));
    } else if (flag == "--step-time-scale") {
      o.step_time_scale = parse_double(flag, next(), 0.0);
    } else if (flag == "--shutdown-timeout") {
      o.shutdown_timeout_s = parse_double(flag, next(), 0.0);
    } else if (flag == "--request-log") {
      o.request_log = next();
    } else if (flag == "--request-log-content") {
      no_value();
      o.request_log_content = true;
    } else if (flag == "--max-request-body-bytes") {
      o.max_request_body_bytes = parse_int(flag, next(), 1);
    } else if (flag == "--max-header-bytes") {
      o.max_header_bytes = parse_int(flag, next(), 256);
    } else if (flag == "--read-timeout") {
      o.read_timeout_s = parse_double(flag, next(), 0.001);
    } else if (flag == "--max-connections") {
      o.max_connections = parse_int(flag, next(), 1);
    } else if (flag == "--http-threads") {
      o.http_threads = static_cast<int32_t>(parse_int(flag, next(), 1));
    } else {
      throw FlagError("unknown flag " + flag + " (see --help)");
    }
  }
  if (o.enable_per_request_metrics && o.disable_log_stats) {
    throw FlagError(
        "--enable-per-request-metrics requires statistics logging: it cannot be used with "
        "--disable-log-stats");
  }
  if (o.backend == "cpu" || o.backend == "cuda") {
    throw FlagError("--backend " + o.backend + ": not built yet (only --backend sim is available)");
  }
  if (o.backend != "sim")
    throw FlagError("--backend: expected sim, cpu or cuda, got '" + o.backend + "'");
  if (o.data_parallel_size != 1) {
    throw FlagError("--data-parallel-size " + std::to_string(o.data_parallel_size) +
                    ": only 1 is supported by llmserve for now");
  }
  if (o.served_model_name.empty()) o.served_model_name = o.model;
  return o;
}

EngineSetup make_engine_setup(const ServerOptions& o) {
  EngineArgs args;
  args.gpu = o.gpu;
  args.model = o.model;
  args.max_num_seqs = o.max_num_seqs;
  args.max_num_batched_tokens = o.max_num_batched_tokens;
  args.block_size = o.block_size;
  args.gpu_memory_utilization = o.gpu_memory_utilization;
  args.enable_prefix_caching = o.enable_prefix_caching;
  args.kv_cache_dtype = o.kv_cache_dtype;
  args.max_model_len = o.max_model_len;
  args.num_gpu_blocks_override = o.num_gpu_blocks_override;
  EngineSetup e;
  try {
    ResolvedEngine engine = resolve_engine_args(args);
    e.scheduler = engine.scheduler;
    e.deployment = engine.deployment;
  } catch (const std::invalid_argument& ex) {
    throw FlagError(ex.what());
  }
  const SchedulerConfig& s = e.scheduler;
  e.cache.block_size = s.block_size;
  e.cache.num_gpu_blocks = s.num_gpu_blocks;
  e.cache.cache_dtype = o.kv_cache_dtype;
  e.cache.enable_prefix_caching = s.enable_prefix_caching;
  e.cache.gpu_memory_utilization = o.gpu_memory_utilization;
  e.served_model_name = o.served_model_name.empty() ? o.model : o.served_model_name;
  return e;
}

}  // namespace llm
