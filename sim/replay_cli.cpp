#include "sim/replay_cli.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "backends/sim/presets.h"
#include "sim/replay_report.h"
#include "sim/trace_io.h"

namespace llm {
namespace {

int64_t parse_int(const std::string& flag, const std::string& text, int64_t min_value) {
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw UsageError(flag + ": expected an integer, got '" + text + "'");
  }
  if (value < min_value) {
    throw UsageError(flag + ": must be at least " + std::to_string(min_value) + ", got " + text);
  }
  return value;
}

double parse_double(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    throw UsageError(flag + ": expected a number, got '" + text + "'");
  }
  return value;
}

uint64_t parse_seed(const std::string& flag, const std::string& text) {
  uint64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) {
    throw UsageError(flag + ": expected a non-negative integer, got '" + text + "'");
  }
  return value;
}

}  // namespace

std::string replay_usage() {
  return R"(usage: llmsim replay TRACE [flags]

TRACE is a .json trace (traces/README.md), an Azure .csv, a Mooncake .jsonl, or synthetic:KEY=V,...

Engine arguments (named as vLLM's):
  --max-num-seqs N                 sequences per step (default 1024 on 80 GB+ GPUs, 256 otherwise)
  --max-num-batched-tokens N       token budget per step (default 8192 on 80 GB+ GPUs, 2048 otherwise)
  --block-size N                   tokens per KV block (16)
  --gpu-memory-utilization F       share of GPU memory for the engine (0.92)
  --enable-prefix-caching | --no-enable-prefix-caching        (on)
  --enable-chunked-prefill | --no-enable-chunked-prefill      (on)
  --kv-cache-dtype auto|bfloat16|float16|fp8|fp8_e4m3|fp8_e5m2  (auto)
  --max-model-len N                context length (default: the model's)
  --num-gpu-blocks-override N      KV blocks instead of the computed capacity
  --long-prefill-token-threshold N cap on one request's prefill chunk (0 = off)
  --scheduling-policy fcfs|priority
  --tensor-parallel-size N         GPUs per engine (1)
Simulation:
  --gpu NAME|FILE.json             GPU preset or profile (H200)
  --model NAME|FILE.json           model preset or shape (Llama-3.1-8B)
  --seed N                         output-token seed (0)
  --arrival-rate-scale F           multiply the arrival rate (2 = twice the load) (1)
  --output-dir DIR                 write DIR/requests.jsonl and DIR/summary.json
  --quiet                          no summary table
  --no-progress                    no progress bar
)";
}

ReplayOptions parse_replay_args(const std::vector<std::string>& args) {
  ReplayOptions o;
  bool have_trace = false;
  bool prefix_flag_seen = false;
  bool chunked_flag_seen = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string flag = args[i];
    std::string value;
    bool inline_value = false;
    if (flag.rfind("--", 0) == 0) {
      if (auto eq = flag.find('='); eq != std::string::npos) {
        value = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
        inline_value = true;
      }
    } else {
      if (have_trace) throw UsageError("unexpected argument '" + flag + "' (one TRACE only)");
      o.trace_path = flag;
      have_trace = true;
      continue;
    }
    auto next = [&]() -> std::string {
      if (inline_value) return value;
      if (i + 1 >= args.size()) throw UsageError(flag + ": missing value");
      return args[++i];
    };
    auto no_value = [&] {
      if (inline_value) throw UsageError(flag + ": takes no value");
    };
    auto once = [&](bool& seen, const char* pair) {
      if (seen) throw UsageError(std::string("contradictory flags: ") + pair + " given twice or both");
      seen = true;
    };
    if (flag == "--max-num-seqs") {
      o.max_num_seqs = static_cast<int32_t>(parse_int(flag, next(), 1));
    } else if (flag == "--max-num-batched-tokens") {
      o.max_num_batched_tokens = parse_int(flag, next(), 1);
    } else if (flag == "--block-size") {
      o.block_size = static_cast<int32_t>(parse_int(flag, next(), 1));
    } else if (flag == "--gpu-memory-utilization") {
      o.gpu_memory_utilization = parse_double(flag, next());
      if (o.gpu_memory_utilization <= 0 || o.gpu_memory_utilization > 1) {
        throw UsageError(flag + ": must be in (0, 1]");
      }
    } else if (flag == "--enable-prefix-caching" || flag == "--no-enable-prefix-caching") {
      no_value();
      once(prefix_flag_seen, "--enable-prefix-caching/--no-enable-prefix-caching");
      o.enable_prefix_caching = flag == "--enable-prefix-caching";
    } else if (flag == "--enable-chunked-prefill" || flag == "--no-enable-chunked-prefill") {
      no_value();
      once(chunked_flag_seen, "--enable-chunked-prefill/--no-enable-chunked-prefill");
      o.enable_chunked_prefill = flag == "--enable-chunked-prefill";
    } else if (flag == "--kv-cache-dtype") {
      o.kv_cache_dtype = next();
    } else if (flag == "--max-model-len") {
      o.max_model_len = parse_int(flag, next(), 2);
    } else if (flag == "--num-gpu-blocks-override") {
      o.num_gpu_blocks_override = parse_int(flag, next(), 2);
    } else if (flag == "--long-prefill-token-threshold") {
      o.long_prefill_token_threshold = parse_int(flag, next(), 0);
    } else if (flag == "--scheduling-policy") {
      o.scheduling_policy = next();
      if (o.scheduling_policy != "fcfs" && o.scheduling_policy != "priority") {
        throw UsageError(flag + ": expected fcfs or priority, got '" + o.scheduling_policy + "'");
      }
    } else if (flag == "--tensor-parallel-size") {
      o.tensor_parallel_size = parse_int(flag, next(), 1);
    } else if (flag == "--gpu") {
      o.gpu = next();
    } else if (flag == "--model") {
      o.model = next();
    } else if (flag == "--seed") {
      o.seed = parse_seed(flag, next());
    } else if (flag == "--arrival-rate-scale") {
      o.arrival_rate_scale = parse_double(flag, next());
      if (o.arrival_rate_scale <= 0) throw UsageError(flag + ": must be > 0");
    } else if (flag == "--output-dir") {
      o.output_dir = next();
      if (o.output_dir.empty()) throw UsageError(flag + ": empty path");
    } else if (flag == "--quiet") {
      no_value();
      o.quiet = true;
    } else if (flag == "--no-progress") {
      no_value();
      o.progress = false;
    } else {
      throw UsageError("unknown flag " + flag + " (see llmsim replay --help)");
    }
  }
  if (!have_trace) throw UsageError("missing TRACE (a trace file or synthetic:...)");
  return o;
}

ReplayConfig make_replay_config(const ReplayOptions& o) {
  ReplayConfig c;
  try {
    c.deployment.gpu = load_gpu_profile(o.gpu);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--gpu: ") + e.what());
  }
  try {
    c.deployment.model = load_model_shape(o.model);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--model: ") + e.what());
  }
  try {
    c.deployment.kv_cache_dtype_bytes = kv_cache_dtype_bytes(o.kv_cache_dtype);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--kv-cache-dtype: ") + e.what());
  }
  c.deployment.tensor_parallel_size = o.tensor_parallel_size;
  if (c.deployment.model.heads % o.tensor_parallel_size != 0) {
    throw UsageError("--tensor-parallel-size " + std::to_string(o.tensor_parallel_size) +
                     " does not divide the model's " + std::to_string(c.deployment.model.heads) +
                     " attention heads");
  }
  c.seed = o.seed;

  // vLLM's defaults for the OpenAI server: larger on 70 GiB+ GPUs other than the A100.
  const bool large_gpu = c.deployment.gpu.memory_bytes >= 70.0 * (1ull << 30) &&
                         c.deployment.gpu.name.find("A100") == std::string::npos;
  SchedulerConfig& s = c.scheduler;
  s.max_num_seqs = o.max_num_seqs.value_or(large_gpu ? 1024 : 256);
  s.max_num_batched_tokens = o.max_num_batched_tokens.value_or(large_gpu ? 8192 : 2048);
  s.block_size = o.block_size;
  s.max_model_len = o.max_model_len.value_or(c.deployment.model.max_context);
  if (o.max_model_len && c.deployment.model.max_context > 0 &&
      *o.max_model_len > c.deployment.model.max_context) {
    throw UsageError("--max-model-len " + std::to_string(*o.max_model_len) +
                     " exceeds the model's context length " +
                     std::to_string(c.deployment.model.max_context));
  }
  s.long_prefill_token_threshold = o.long_prefill_token_threshold;
  s.enable_chunked_prefill = o.enable_chunked_prefill;
  s.enable_prefix_caching = o.enable_prefix_caching;
  s.policy = o.scheduling_policy == "priority" ? SchedulingPolicy::kPriority : SchedulingPolicy::kFcfs;
  int64_t blocks = o.num_gpu_blocks_override.value_or(
      num_gpu_blocks(c.deployment, o.gpu_memory_utilization, o.block_size, s.max_num_batched_tokens));
  if (blocks < 2) {
    throw UsageError("the model's weights leave no room for a KV cache on --gpu " + o.gpu +
                     " at --gpu-memory-utilization " + std::to_string(o.gpu_memory_utilization) +
                     "; raise --tensor-parallel-size or pick a larger GPU");
  }
  if (blocks > INT32_MAX) blocks = INT32_MAX;
  s.num_gpu_blocks = static_cast<int32_t>(blocks);
  if (std::string problem = validate(s); !problem.empty()) throw UsageError(problem);
  return c;
}

namespace {

namespace fs = std::filesystem;

// Files written under a temporary name, renamed into place only on commit(); removed otherwise.
class PendingFile {
 public:
  PendingFile(const fs::path& final_path)
      : final_(final_path), temp_(final_path.string() + ".partial") {
    stream_.open(temp_, std::ios::binary | std::ios::trunc);
    if (!stream_) throw UsageError("--output-dir: cannot write " + temp_.string());
  }
  ~PendingFile() {
    if (!committed_) {
      stream_.close();
      std::error_code ec;
      fs::remove(temp_, ec);
    }
  }
  std::ofstream& stream() { return stream_; }
  void commit() {
    stream_.close();
    if (!stream_) throw std::runtime_error("write failed: " + temp_.string());
    fs::rename(temp_, final_);
    committed_ = true;
  }

 private:
  fs::path final_;
  fs::path temp_;
  std::ofstream stream_;
  bool committed_ = false;
};

}  // namespace

int run_replay_command(const ReplayOptions& o, std::ostream& out, std::ostream& err,
                       const ProgressFn& progress) {
  try {
    const ReplayConfig config = make_replay_config(o);
    Trace trace = read_trace_file(o.trace_path);
    if (o.arrival_rate_scale != 1.0) scale_arrivals(trace, o.arrival_rate_scale);

    std::unique_ptr<PendingFile> requests_file;
    std::unique_ptr<PendingFile> summary_file;
    if (!o.output_dir.empty()) {
      std::error_code ec;
      fs::create_directories(o.output_dir, ec);
      if (ec) throw UsageError("--output-dir: cannot create " + o.output_dir + ": " + ec.message());
      for (const char* name : {"requests.jsonl", "summary.json"}) fs::remove(fs::path(o.output_dir) / name, ec);
      requests_file = std::make_unique<PendingFile>(fs::path(o.output_dir) / "requests.jsonl");
      summary_file = std::make_unique<PendingFile>(fs::path(o.output_dir) / "summary.json");
    }

    ReplayReport report(requests_file ? &requests_file->stream() : nullptr);
    int64_t total = 0;
    for (const auto& r : trace.requests) total += r.n;
    std::function<void(const EngineCore&)> on_step;
    if (progress) on_step = [&](const EngineCore&) { progress(report.num_finished(), total); };
    const ReplayTotals totals = run_replay(trace, config, report, on_step);
    const ReplaySummary summary = report.finish(totals, static_cast<int64_t>(trace.requests.size()));

    if (summary_file) {
      summary_file->stream() << format_summary_json(summary);
      requests_file->commit();
      summary_file->commit();
    }
    if (!o.quiet) out << format_summary_table(summary);
    return 0;
  } catch (const UsageError& e) {
    err << "llmsim replay: " << e.what() << "\n";
  } catch (const TraceError& e) {
    err << "llmsim replay: " << e.what() << "\n";
  } catch (const std::invalid_argument& e) {
    err << "llmsim replay: " << e.what() << "\n";
  }
  return 2;
}

}  // namespace llm
