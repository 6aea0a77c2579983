#include "sim/replay_cli.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "backends/sim/engine_args.h"
#include "core/exposition.h"
#include "core/observer_tee.h"
#include "core/vllm_metrics.h"
#include "sim/metrics_recorder.h"
#include "sim/replay_report.h"
#include "sim/time_text.h"
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
  --data-parallel-size N           engines, each with its own KV cache (1)
  --routing-policy P               round-robin | least-outstanding | prefix-affinity (round-robin)
  --served-model-name NAME         the model_name label of the metrics (default: --model)
Simulation:
  --gpu NAME|FILE.json             GPU preset or profile (H200)
  --model NAME|FILE.json           model preset or shape (Llama-3.1-8B)
  --seed N                         output-token seed (0)
  --arrival-rate-scale F           multiply the arrival rate (2 = twice the load) (1)
  --output-dir DIR                 write DIR/requests.jsonl and DIR/summary.json
  --metrics-out FILE               the replay's Prometheus metrics as OpenMetrics time series
  --promtool-series FILE           the same series as promtool test-rules input_series (YAML)
  --metrics-snapshot FILE          the /metrics text an engine would serve at the end of the run
  --scrape-interval D              time between samples of those series (5s)
  --start-time RFC3339             wall-clock time of the trace's start (2026-01-01T00:00:00Z)
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
      if (seen)
        throw UsageError(std::string("contradictory flags: ") + pair + " given twice or both");
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
    } else if (flag == "--data-parallel-size") {
      o.data_parallel_size = static_cast<int32_t>(parse_int(flag, next(), 1));
    } else if (flag == "--routing-policy") {
      o.routing_policy = next();
      try {
        parse_routing_policy(o.routing_policy);
      } catch (const std::invalid_argument& e) {
        throw UsageError(flag + ": " + e.what());
      }
    } else if (flag == "--served-model-name") {
      o.served_model_name = next();
      if (o.served_model_name.empty()) throw UsageError(flag + ": empty name");
    } else if (flag == "--metrics-out") {
      o.metrics_out = next();
      if (o.metrics_out.empty()) throw UsageError(flag + ": empty path");
    } else if (flag == "--promtool-series") {
      o.promtool_series = next();
      if (o.promtool_series.empty()) throw UsageError(flag + ": empty path");
    } else if (flag == "--metrics-snapshot") {
      o.metrics_snapshot = next();
      if (o.metrics_snapshot.empty()) throw UsageError(flag + ": empty path");
    } else if (flag == "--scrape-interval") {
      const std::string text = next();
      const auto ns = parse_duration_ns(text);
      if (!ns || *ns % 1'000'000 != 0) {
        throw UsageError(flag + ": expected a duration such as 5s, 500ms or 1m, got '" + text +
                         "'");
      }
      o.scrape_interval_ns = *ns;
    } else if (flag == "--start-time") {
      const std::string text = next();
      const auto ns = parse_rfc3339_ns(text);
      if (!ns) {
        throw UsageError(flag + ": expected an RFC 3339 time such as 2026-01-01T00:00:00Z, got '" +
                         text + "'");
      }
      o.start_time_unix_ns = *ns;
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
  EngineArgs args;
  args.gpu = o.gpu;
  args.model = o.model;
  args.tensor_parallel_size = o.tensor_parallel_size;
  args.max_num_seqs = o.max_num_seqs;
  args.max_num_batched_tokens = o.max_num_batched_tokens;
  args.block_size = o.block_size;
  args.gpu_memory_utilization = o.gpu_memory_utilization;
  args.enable_prefix_caching = o.enable_prefix_caching;
  args.enable_chunked_prefill = o.enable_chunked_prefill;
  args.kv_cache_dtype = o.kv_cache_dtype;
  args.max_model_len = o.max_model_len;
  args.num_gpu_blocks_override = o.num_gpu_blocks_override;
  args.long_prefill_token_threshold = o.long_prefill_token_threshold;
  args.policy =
      o.scheduling_policy == "priority" ? SchedulingPolicy::kPriority : SchedulingPolicy::kFcfs;
  ReplayConfig c;
  try {
    ResolvedEngine engine = resolve_engine_args(args);
    c.scheduler = engine.scheduler;
    c.deployment = engine.deployment;
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  c.seed = o.seed;
  c.data_parallel_size = o.data_parallel_size;
  c.routing = parse_routing_policy(o.routing_policy);
  return c;
}

namespace {

namespace fs = std::filesystem;

// Files written under a temporary name, renamed into place only on commit(); removed otherwise.
class PendingFile {
 public:
  PendingFile(const std::string& flag, const fs::path& final_path)
      : final_(final_path), temp_(final_path.string() + ".partial") {
    stream_.open(temp_, std::ios::binary | std::ios::trunc);
    if (!stream_) throw UsageError(flag + ": cannot write " + temp_.string());
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

    std::unique_ptr<PendingFile> requests_file, summary_file, metrics_file, series_file,
        snapshot_file;
    if (!o.output_dir.empty()) {
      std::error_code ec;
      fs::create_directories(o.output_dir, ec);
      if (ec) throw UsageError("--output-dir: cannot create " + o.output_dir + ": " + ec.message());
      for (const char* name : {"requests.jsonl", "summary.json"}) {
        fs::remove(fs::path(o.output_dir) / name, ec);
      }
      requests_file =
          std::make_unique<PendingFile>("--output-dir", fs::path(o.output_dir) / "requests.jsonl");
      summary_file =
          std::make_unique<PendingFile>("--output-dir", fs::path(o.output_dir) / "summary.json");
    }
    if (!o.metrics_out.empty()) {
      metrics_file = std::make_unique<PendingFile>("--metrics-out", o.metrics_out);
    }
    if (!o.promtool_series.empty()) {
      series_file = std::make_unique<PendingFile>("--promtool-series", o.promtool_series);
    }
    if (!o.metrics_snapshot.empty()) {
      snapshot_file = std::make_unique<PendingFile>("--metrics-snapshot", o.metrics_snapshot);
    }

    // Observers: the whole-run report, one report per engine when there are several, and the
    // Prometheus metrics when a time series is wanted.
    const size_t num_engines = static_cast<size_t>(config.data_parallel_size);
    ReplayReport report(requests_file ? &requests_file->stream() : nullptr);
    std::vector<std::unique_ptr<ReplayReport>> engine_reports;
    std::vector<std::unique_ptr<ObserverTee>> tees;
    std::vector<EngineObserver*> observers;
    prometheus::Registry registry;
    std::unique_ptr<VllmMetricFamilies> families;
    std::vector<std::unique_ptr<EngineMetrics>> engine_metrics;
    const bool want_metrics = metrics_file || series_file || snapshot_file;
    const bool want_series = metrics_file || series_file;
    if (want_metrics) {
      families = std::make_unique<VllmMetricFamilies>(registry, config.scheduler.max_model_len);
    }
    CacheConfigInfo cache;
    cache.block_size = config.scheduler.block_size;
    cache.num_gpu_blocks = config.scheduler.num_gpu_blocks;
    cache.cache_dtype = o.kv_cache_dtype;
    cache.enable_prefix_caching = config.scheduler.enable_prefix_caching;
    cache.gpu_memory_utilization = o.gpu_memory_utilization;
    const std::string model_name = o.served_model_name.empty() ? o.model : o.served_model_name;
    for (size_t i = 0; i < num_engines; ++i) {
      auto tee = std::make_unique<ObserverTee>();
      tee->add(&report);
      if (num_engines > 1) {
        engine_reports.push_back(std::make_unique<ReplayReport>(nullptr));
        tee->add(engine_reports.back().get());
      }
      if (want_metrics) {
        engine_metrics.push_back(
            std::make_unique<EngineMetrics>(*families, model_name, static_cast<int>(i), cache));
        tee->add(engine_metrics.back().get());
      }
      observers.push_back(tee.get());
      tees.push_back(std::move(tee));
    }
    std::vector<EngineMetrics*> metric_ptrs;
    for (auto& m : engine_metrics) metric_ptrs.push_back(m.get());
    MetricsRecorder recorder(registry, metric_ptrs);

    int64_t total = 0;
    for (const auto& r : trace.requests) total += r.n;
    ReplayHooks hooks;
    if (progress) {
      hooks.on_step = [&](size_t, const EngineCore&) { progress(report.num_finished(), total); };
    }
    if (want_series) {
      hooks.scrape_interval = o.scrape_interval_ns;
      hooks.on_scrape = [&recorder](Nanos t) { recorder.scrape(t); };
    }
    const ReplayTotals totals = run_replay(trace, config, observers, hooks);
    ReplaySummary summary =
        report.finish(totals.end_time, totals.sum(), static_cast<int64_t>(trace.requests.size()));
    for (size_t i = 0; i < engine_reports.size(); ++i) {
      summary.per_engine.push_back(engine_reports[i]->finish(totals.end_time, totals.engines[i],
                                                             totals.engines[i].num_requests));
    }

    if (snapshot_file) {
      for (auto& m : engine_metrics) m->flush();
      snapshot_file->stream() << serialize_exposition(registry.Collect());
      snapshot_file->commit();
    }
    if (metrics_file) {
      recorder.write_openmetrics(metrics_file->stream(), o.start_time_unix_ns);
      metrics_file->commit();
    }
    if (series_file) {
      recorder.write_promtool_series(series_file->stream(), o.scrape_interval_ns);
      series_file->commit();
    }
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
