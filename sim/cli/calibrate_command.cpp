#include "sim/cli/calibrate_command.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/cpu_engine_config.h"
#include "backends/cuda/cuda_backend.h"
#include "backends/cuda/weight_packing.h"
#include "backends/model/model_loader.h"
#include "backends/sim/engine_profile.h"
#include "backends/sim/step_record.h"
#include "calibrate/api_probe.h"
#include "calibrate/backend_probe.h"
#include "calibrate/gpu_fit/gpu_presets_fit.h"
#include "calibrate/http_probe.h"
#include "calibrate/step_log_samples.h"
#include "calibrate/step_pricing.h"
#include "core/engine_args.h"
#include "core/flag_set.h"
#include "core/pending_file.h"
#include "loadgen/cli.h"
#include "sim/cli/llmserve_child.h"
#include "ui/progress_bar.h"

namespace llm {
namespace {

constexpr const char* kCalibrateUsage =
    R"(usage: llmsim calibrate --backend cpu --model PATH [--cpu-threads N] [flags] --out FILE.json
       llmsim calibrate --runs GPU_TRUTH_DIR --out-dir DIR
       llmsim calibrate --url http://HOST:PORT [--model NAME] [flags] --out FILE.json
       llmsim calibrate --step-log STEPLOG[,STEPLOG...] --facts PROFILE.json [--engine N]
                        [--gap-limit-ms MS] --out FILE.json

Measures a real engine and writes the profile that `llmsim replay --profile FILE.json` and
`llmserve --backend sim --profile FILE.json` use to price each step (docs/cost-model.md).

In-process (--backend): drives the backend through the engine's own scheduler with designed
probes (prefills of several lengths, decode batches of 1..max-num-seqs at several contexts,
prefills joining running decodes), times each step on the steady clock and fits the model.
  --backend cpu|cuda               the backend to measure (cuda: the GPU's KV cache from
                                   --gpu-memory-utilization or --num-gpu-blocks-override;
                                   exits 2 when there is no usable GPU)
  --model PATH                     the model file (.gguf or a safetensors directory)
  --cpu-threads N                  GEMM worker threads (0 = all cores)
  --kv-cache-memory-bytes N        KV budget when --num-gpu-blocks-override is unset (1073741824)
  --max-num-seqs N, --max-num-batched-tokens N, --max-model-len N, --block-size N,
  --num-gpu-blocks-override N      the engine arguments the profile is measured with (as llmserve)
  --repeats N                      runs of each probe; each step keeps its median (3)
  --quick                          a few small probes only (seconds; for tests)
  --out FILE.json                  the profile (written under FILE.json.partial, then renamed)
  --llmserve PATH                  the llmserve whose API server the profile's api_server block
                                   measures: started on a free loopback port with this backend,
                                   model and engine arguments once the steps are measured
                                   (default: the llmserve beside llmsim; none there: no block)
  --steps-out FILE.jsonl           also the measured steps, as a step log (llmserve --step-log's
                                   format, no gaps): for llmsim price-steps, or for a later
                                   calibrate --step-log that fits them with a server's own steps

From outside (--url): single requests of several prompt lengths time the prefill step, waves of
b requests with prompts of c tokens time the decode step at batch b, from the server's
vllm:request_prefill_time_seconds and vllm:request_decode_time_seconds where /metrics has them
(else on the client). The KV cache's size comes from vllm:cache_config_info; what cannot be seen
is assumed and printed.
  --url http://HOST:PORT[/PATH]    the server (llmserve or vLLM)
  --model NAME                     the model to ask for (default: the first of /v1/models)
  --api-key KEY                    sent as "Authorization: Bearer KEY"
  --max-num-seqs N, --max-num-batched-tokens N   the server's limits (assumed 256 and 2048)
  --num-gpu-blocks-override N      the KV block count when /metrics does not report it

Both measure the API server too (calibrate/api_probe.h): single streaming requests of three
prompt lengths, the engine idle, give the time from the body read to the engine's queue (the
server's TTFT less its queue and prefill time, from /metrics) and the client's TTFT beyond the
server's; the profile keeps them as its api_server block, which a replay with the profile adds
in front of the engine (llmsim replay --no-api-server leaves it out).
  --no-api-server-probe            measure no API server (the profile then has no api_server)

From a step log (--step-log): fits the step model to the steps a server logged while it served
real traffic (llmserve --step-log FILE), so the profile prices steps as they ran there, with the
server's I/O and its clients sharing the machine, rather than as probes run alone (with
--no-step-noise the fit is scaled so that its times of the logged steps add up to the measured
total; by default the scatter below does that on average). A step's time is
its execute() time plus the host time until the engine's next step (outputs sent, next batch
scheduled), unless that gap is an idle wait (--gap-limit-ms or longer).
  --step-log STEPLOG[,...]         the log (one JSON line per engine step); several,
                                   comma-separated, are fitted together (the server's steps
                                   under calibrate --url's probes, which cover every batch size,
                                   with its steps under real traffic, say)
  --facts PROFILE.json             the engine's facts (KV blocks, block size, context length,
                                   vocabulary, limits) from a calibration of the same server
                                   (in-process or --url); only its step model is replaced
  --engine N                       only engine N's steps (default: every engine's)
  --gap-limit-ms MS                gaps between steps shorter than MS are host time, counted in
                                   the step before (default 5, as llmsim price-steps; 0: none)

From published GPU measurements (--runs): fits the GPU presets' step-model and KV-capacity
coefficients (--gpu H100-SXM, ...) to the operator profiles and whole runs in the folder (its
layout is ../shared/gpu-truth's, README.md there) and writes one preset file per card, with
each fit's residuals and the sources (docs/cost-model.md). The shipped presets are
  llmsim calibrate --runs ../shared/gpu-truth --out-dir backends/sim/gpus
  --runs DIR                       the gpu-truth folder
  --out-dir DIR                    where to write CARD.json (each under .partial, then renamed)
  --hold-out MODEL[,MODEL...]      leave these models' profiles and runs out of the fit (names
                                   matched inside the model names, e.g. Qwen2.5-7B): presets to
                                   predict those models' runs with, for cross-validation

Every mode keeps in the profile how the measured steps scatter around the fitted model (measured /
modelled time at 21 probabilities, "step_time_noise"); a replay draws each step's ratio from it,
so its ITL and TPOT tails and its sums are the engine's rather than those of a typical step.
  --no-step-noise                  keep no scatter: a replay prices every step at the model's
                                   time (--step-log: the model is then scaled to the sum)
)";

struct CalibrateOptions {
  std::string backend;
  std::string steps_out;
  std::string url;
  std::string step_log;
  std::string facts;
  std::string runs;
  std::string out_dir;
  std::string hold_out;
  int64_t engine_index = -1;
  double gap_limit_ms = -1;     // -1: not given (5 with --step-log)
  loadgen::BenchConfig target;  // from --url
  std::string out;
  int32_t cpu_threads = 0;
  int64_t kv_cache_memory_bytes = int64_t{1} << 30;
  int32_t repeats = 3;
  bool quick = false;
  bool api_probe = true;
  std::string llmserve;  // --llmserve: its API server is measured for --backend
  EngineArgs engine;
  bool model_given = false;
};

CalibrateOptions parse_calibrate_args(const std::vector<std::string>& args) {
  CalibrateOptions o;
  EngineFlagParser engine;
  FlagSet flags("llmsim calibrate");
  engine.add_to(flags);
  flags.choice({"--backend"}, o.backend, {"cpu", "cuda"})
      .nonempty({"--url"}, o.url, "URL")
      .nonempty({"--out"}, o.out)
      .nonempty({"--steps-out"}, o.steps_out)
      .integer({"--cpu-threads"}, o.cpu_threads, 0)
      .integer({"--kv-cache-memory-bytes"}, o.kv_cache_memory_bytes, 1)
      .integer({"--repeats"}, o.repeats, 1, 99)
      .boolean({"--quick"}, o.quick)
      .boolean({"--no-api-server-probe"}, o.api_probe, false)
      .nonempty({"--llmserve"}, o.llmserve)
      .nonempty({"--step-log"}, o.step_log)
      .nonempty({"--facts"}, o.facts)
      .nonempty({"--runs"}, o.runs)
      .nonempty({"--out-dir"}, o.out_dir)
      .nonempty({"--hold-out"}, o.hold_out)
      .integer({"--engine"}, o.engine_index, 0)
      .number({"--gap-limit-ms"}, o.gap_limit_ms, 0.0);
  flags.text({"--api-key"}, o.target.api_key);
  flags.parse(args);
  o.engine = engine.args();
  if (!o.url.empty()) loadgen::parse_base_url(o.url, o.target);
  o.model_given = o.engine.gpu_or_model_given;
  const int sources = !o.backend.empty() + !o.url.empty() + !o.step_log.empty() + !o.runs.empty();
  if (sources != 1) {
    throw UsageError(
        "--backend: give one of --backend (in-process), --url (a running server), --step-log "
        "(a server's step log) and --runs (published GPU measurements)");
  }
  if (!o.runs.empty()) {
    if (o.out_dir.empty()) throw UsageError("--out-dir: required with --runs");
    if (!o.out.empty()) throw UsageError("--out: --runs writes one file per card to --out-dir");
    return o;
  }
  if (!o.out_dir.empty()) throw UsageError("--out-dir: only with --runs");
  if (!o.hold_out.empty()) throw UsageError("--hold-out: only with --runs");
  if (o.out.empty()) throw UsageError("--out: required (the profile to write)");
  if (!o.step_log.empty() && o.facts.empty()) {
    throw UsageError("--facts: required with --step-log (a profile of the same engine)");
  }
  if (o.step_log.empty() && !o.facts.empty()) throw UsageError("--facts: only with --step-log");
  if (o.step_log.empty() && o.engine_index >= 0) throw UsageError("--engine: only with --step-log");
  if (o.step_log.empty() && o.gap_limit_ms >= 0) {
    throw UsageError("--gap-limit-ms: only with --step-log");
  }
  if (o.gap_limit_ms < 0) o.gap_limit_ms = kStepGapLimitMs;
  if (!o.steps_out.empty() && o.steps_out == o.out) {
    throw UsageError("--steps-out: the same file as --out");
  }
  if (!o.engine.profile.empty()) throw UsageError("--profile: calibrate writes a profile");
  if (o.engine.gpu != EngineArgs{}.gpu) throw UsageError("--gpu: calibrate measures a real engine");
  if (!o.backend.empty() && !o.model_given) throw UsageError("--model: required with --backend");
  if (!o.url.empty() && o.model_given) o.target.model = o.engine.model;
  if (!o.llmserve.empty() && o.backend.empty()) throw UsageError("--llmserve: only with --backend");
  if (!o.step_log.empty() && !o.api_probe) {
    throw UsageError("--no-api-server-probe: --step-log measures no API server");
  }
  return o;
}

// The API server's costs, measured through `target`; prints what it measured.
ApiServerCosts measure_api_server(const loadgen::BenchConfig& target, int64_t max_model_len,
                                  bool quick, std::ostream& err) {
  ApiProbeOptions probe;
  probe.target = target;
  probe.requests_per_length = quick ? 2 : 5;
  probe.max_prompt_len =
      std::min<int64_t>(quick ? 256 : 1024, std::max<int64_t>(max_model_len / 2, 16));
  const ApiProbeResult r = probe_api_server(probe);
  for (const ApiProbeLength& l : r.lengths) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "llmsim calibrate: API server, prompt %lld: body read to queue %.3f ms, client "
                  "TTFT beyond the server's %.3f ms\n",
                  static_cast<long long>(l.prompt_len), l.hop_ms, l.response_ms);
    err << line;
  }
  return r.costs;
}

std::string format_ns(double ns) {
  char buf[32];
  if (ns >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
  } else if (ns >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.2f us", ns / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3g ns", ns);
  }
  return buf;
}

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * fraction);
  return buf;
}

// A profile and the steps its step model was fitted to.
struct Calibration {
  EngineProfile profile;
  std::vector<StepSample> samples;
};

// The API server of an llmserve with this backend, model and engine arguments (started for the
// purpose), or none when there is no llmserve to start.
std::optional<ApiServerCosts> measure_llmserve_api(const CalibrateOptions& o,
                                                   const SchedulerConfig& config, int threads,
                                                   std::ostream& err) {
  const std::string binary = o.llmserve.empty() ? llmserve_beside_self() : o.llmserve;
  if (binary.empty()) {
    err << "llmsim calibrate: no llmserve beside llmsim (give --llmserve PATH): the profile gets "
           "no api_server block\n";
    return std::nullopt;
  }
  const std::vector<std::string> args = {"--backend",
                                         o.backend,
                                         "--model",
                                         o.engine.model,
                                         "--cpu-threads",
                                         std::to_string(threads),
                                         "--max-num-seqs",
                                         std::to_string(config.max_num_seqs),
                                         "--max-num-batched-tokens",
                                         std::to_string(config.max_num_batched_tokens),
                                         "--max-model-len",
                                         std::to_string(config.max_model_len),
                                         "--num-gpu-blocks-override",
                                         std::to_string(config.num_gpu_blocks),
                                         "--block-size",
                                         std::to_string(config.block_size)};
  err << "llmsim calibrate: measuring the API server of " << binary << "\n";
  LlmserveChild server(binary, args);
  loadgen::BenchConfig target;
  target.host = "127.0.0.1";
  target.port = server.port();
  ApiServerCosts costs = measure_api_server(target, config.max_model_len, o.quick, err);
  costs.source = "llmserve --backend " + o.backend + " on this machine, " + costs.source;
  return costs;
}

// Measures the CPU or CUDA backend in-process.
Calibration calibrate_cpu(const CalibrateOptions& o, std::ostream& err) {
  const bool cuda = o.backend == "cuda";
  CudaDeviceInfo device;
  if (cuda) {
    device = probe_cuda_device();
    if (!device.usable) throw UsageError("--backend cuda: " + device.problem);
  }
  ModelWeights weights_value;
  try {
    weights_value = load_model_weights(o.engine.model);
  } catch (const std::exception& e) {
    throw UsageError("--model " + o.engine.model + ": cannot load the model: " + e.what());
  }
  auto weights = std::make_shared<const ModelWeights>(std::move(weights_value));
  const ModelConfig& model = weights->config;
  CudaKvPlan plan;
  if (cuda) plan = cuda_kv_plan(o.engine, model, device.memory, cuda_weight_bytes(*weights), {});
  const SchedulerConfig config =
      cuda ? plan.scheduler : cpu_scheduler_config(o.engine, model, o.kv_cache_memory_bytes);
  CpuBackendOptions cpu;
  cpu.num_blocks = config.num_gpu_blocks;
  cpu.block_size = config.block_size;
  cpu.threads =
      o.cpu_threads > 0 ? o.cpu_threads : static_cast<int>(std::thread::hardware_concurrency());
  std::unique_ptr<Backend> backend_owner;
  if (cuda) {
    CudaBackendOptions g;
    g.num_blocks = config.num_gpu_blocks;
    g.block_size = config.block_size;
    g.kv_dtype_bytes = plan.kv_dtype_bytes;
    g.max_num_seqs = config.max_num_seqs;
    g.max_num_batched_tokens = config.max_num_batched_tokens;
    g.max_model_len = config.max_model_len;
    backend_owner = make_cuda_backend(weights, g);
  } else {
    backend_owner = std::make_unique<CpuBackend>(weights, cpu);
  }
  Backend& backend = *backend_owner;

  ProbeOptions probe;
  probe.repeats = o.repeats;
  probe.vocab_size = model.vocab_size;
  ProgressBar bar("calibrate", true);
  probe.progress = [&bar](const std::string&, int done, int total) { bar.update(done, total); };
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Probe> probes = default_probes(config, o.quick);
  const std::vector<StepSample> samples = measure_backend_steps(backend, config, probes, probe);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bar.finish();
  err << "llmsim calibrate: " << samples.size() << " steps from " << probes.size() << " probes x "
      << o.repeats << " runs in " << std::lround(seconds) << " s\n";

  const StepFit fit = fit_step_model(samples);
  EngineProfile p;
  p.source = cuda ? "cuda backend in-process, " + device.name
                  : "cpu backend in-process, " + std::to_string(cpu.threads) + " threads";
  p.model = o.engine.model;
  p.step = fit.model;
  p.async_scheduling = false;  // the engine loop schedules a step after the previous one ends
  p.num_gpu_blocks = config.num_gpu_blocks;
  p.block_size = config.block_size;
  p.kv_cache_dtype = cuda ? plan.cache_dtype : "float32";
  p.max_model_len = config.max_model_len;
  p.vocab_size = model.vocab_size;
  p.max_num_seqs = config.max_num_seqs;
  p.max_num_batched_tokens = config.max_num_batched_tokens;
  p.fit = fit.quality;
  if (!o.engine.no_step_noise) p.step_noise = step_noise_of_fit(fit, samples);
  if (o.api_probe && !cuda) p.api_server = measure_llmserve_api(o, config, cpu.threads, err);
  return {p, samples};
}

// Measures a running server from outside.
Calibration calibrate_url(const CalibrateOptions& o, std::ostream& out) {
  HttpProbeOptions probe;
  probe.target = o.target;
  probe.repeats = o.repeats;
  probe.quick = o.quick;
  probe.max_num_seqs = o.engine.max_num_seqs;
  probe.max_num_batched_tokens = o.engine.max_num_batched_tokens;
  probe.num_gpu_blocks = o.engine.num_gpu_blocks_override;
  ProgressBar bar("calibrate", true);
  probe.progress = [&bar](const std::string&, int done, int total) { bar.update(done, total); };
  HttpCalibration measured = probe_server(probe);
  bar.finish();
  for (const std::string& a : measured.assumptions) out << "assumed: " << a << "\n";
  const StepFit fit = fit_step_model(measured.samples);
  EngineProfile p = measured.facts;
  p.step = fit.model;
  p.fit = fit.quality;
  if (!o.engine.no_step_noise) p.step_noise = step_noise_of_fit(fit, measured.samples);
  if (o.api_probe) {
    loadgen::BenchConfig target = o.target;
    target.model = p.model;
    p.api_server = measure_api_server(target, p.max_model_len, o.quick, out);
    p.api_server->source = o.url + ": " + p.api_server->source;
  }
  return {p, measured.samples};
}

// Fits the step model to a server's step log; the rest of the profile is --facts'.
Calibration calibrate_step_log(const CalibrateOptions& o, std::ostream& err) {
  EngineProfile p;
  try {
    p = load_engine_profile(o.facts);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--facts: ") + e.what());
  }
  std::vector<StepSample> samples;
  for (const std::string& path : parse_comma_list_flag("--step-log", o.step_log)) {
    std::vector<StepRecord> steps;
    try {
      steps = read_step_log(path);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--step-log: ") + e.what());
    }
    // Each log on its own: the gap before a log's first step is not host time of another log's
    // last step.
    const std::vector<StepSample> more =
        step_log_samples(steps, o.engine_index, static_cast<Nanos>(o.gap_limit_ms * 1e6));
    err << "llmsim calibrate: " << more.size() << " steps from " << path << "\n";
    samples.insert(samples.end(), more.begin(), more.end());
  }
  if (samples.size() < static_cast<size_t>(StepFeatures::kCount)) {
    throw UsageError("--step-log: " + std::to_string(samples.size()) + " timed steps" +
                     (o.engine_index >= 0 ? " of engine " + std::to_string(o.engine_index) : "") +
                     " in " + o.step_log + "; the fit needs at least " +
                     std::to_string(StepFeatures::kCount));
  }
  const StepLogFit logged = fit_step_log(samples, !o.engine.no_step_noise);
  const StepFit& fit = logged.fit;
  p.step_noise = logged.noise;  // not the --facts profile's, of other steps
  p.source = "step log " + o.step_log +
             (o.engine_index >= 0 ? " (engine " + std::to_string(o.engine_index) + ")" : "") +
             ", facts from " + o.facts;
  p.step = fit.model;
  p.fit = fit.quality;
  return {p, samples};
}

// The samples as a step log: one engine's steps back to back, each its measured time and no gap
// (a gap of -1 is never counted as host time).
void write_steps(const std::vector<StepSample>& samples, std::ostream& out) {
  Nanos start = 0;
  for (size_t i = 0; i < samples.size(); ++i) {
    StepRecord r;
    r.step = static_cast<int64_t>(i);
    r.start_ns = start;
    r.execute_ns = std::llround(samples[i].ns);
    r.batch = samples[i].cost;
    start += r.execute_ns;
    out << step_record_json(r) << "\n";
  }
}

// Fits the GPU presets to the published measurements in --runs and writes one file per card.
int calibrate_gpu_presets(const CalibrateOptions& o, std::ostream& out) {
  std::error_code ec;
  if (!std::filesystem::is_directory(o.out_dir, ec)) {
    throw UsageError("--out-dir " + o.out_dir + ": not a folder");
  }
  std::vector<GpuPreset> presets;
  try {
    presets = fit_gpu_presets(o.runs, out, o.hold_out);
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    throw UsageError(what.starts_with("--hold-out") ? what : "--runs: " + what);
  }
  // Every file is written under its .partial name first; none is renamed before all are.
  std::vector<std::unique_ptr<PendingFile>> files;
  for (const GpuPreset& p : presets) {
    const std::string path =
        (std::filesystem::path(o.out_dir) / (p.profile.name + ".json")).string();
    files.push_back(std::make_unique<PendingFile>("--out-dir", path));
    files.back()->stream() << gpu_preset_json(p);
  }
  for (size_t i = 0; i < files.size(); ++i) {
    files[i]->commit();
    out << "wrote "
        << (std::filesystem::path(o.out_dir) / (presets[i].profile.name + ".json")).string()
        << "\n";
  }
  return 0;
}

}  // namespace

std::string describe_fit(const StepFit& fit) {
  const FittedStepModel& m = fit.model;
  std::string out = "step time = " + format_ns(m.overhead_ns) + "\n";
  out += "  + " + format_ns(m.per_sequence_ns) + " per sequence\n";
  out += "  + " + format_ns(m.per_token_ns) + " per new token, counting at least " +
         std::to_string(std::lround(m.token_knee)) + " (weight streaming below that)\n";
  out += "  + " + format_ns(m.per_context_token_ns) + " per cached token read\n";
  out += "  + " + format_ns(m.per_attention_pair_ns) + " per causal attention pair\n";
  out += "  + " + format_ns(m.per_sample_ns) + " per sampled sequence, counting at least " +
         std::to_string(std::lround(m.sample_knee)) + "\n";
  out += "  + " + format_ns(m.multi_token_ns) + " per step of two or more new tokens\n";
  out += "fit over " + std::to_string(fit.quality.steps) + " steps: |error| median " +
         percent(fit.quality.median_abs_error) + ", p90 " + percent(fit.quality.p90_abs_error) +
         ", max " + percent(fit.quality.max_abs_error) + "\n";
  return out;
}

std::string describe_step_noise(const StepTimeNoise& noise) {
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "measured / modelled step time: p10 %.3f, p50 %.3f, p90 %.3f, p99 %.3f, mean "
                "%.3f (kept as step_time_noise)\n",
                step_noise_ratio(noise, 0.1), step_noise_ratio(noise, 0.5),
                step_noise_ratio(noise, 0.9), step_noise_ratio(noise, 0.99),
                step_noise_mean(noise));
  return buf;
}

int run_calibrate_command(const std::vector<std::string>& args, std::ostream& out,
                          std::ostream& err) {
  if (wants_help(args)) {
    out << kCalibrateUsage;
    return 0;
  }
  CalibrateOptions o;
  try {
    o = parse_calibrate_args(args);
    if (!o.runs.empty()) return calibrate_gpu_presets(o, out);
    PendingFile file("--out", o.out);
    std::unique_ptr<PendingFile> steps_file;
    if (!o.steps_out.empty())
      steps_file = std::make_unique<PendingFile>("--steps-out", o.steps_out);
    const Calibration c = !o.step_log.empty() ? calibrate_step_log(o, err)
                          : o.url.empty()     ? calibrate_cpu(o, err)
                                              : calibrate_url(o, out);
    StepFit fit;
    fit.model = c.profile.step;
    fit.quality = c.profile.fit;
    out << describe_fit(fit);
    if (c.profile.step_noise) out << describe_step_noise(*c.profile.step_noise);
    if (const auto& api = c.profile.api_server) {
      out << "API server: " << format_ns(api->hop_ns) << " from the body read to the engine's "
          << "queue + " << format_ns(api->per_prompt_token_ns) << " per prompt token, "
          << format_ns(api->response_ns) << " more at the client (kept as api_server)\n";
    }
    file.stream() << engine_profile_json(c.profile);
    file.commit();
    out << "wrote " << o.out << "\n";
    if (steps_file) {
      write_steps(c.samples, steps_file->stream());
      steps_file->commit();
      out << "wrote " << c.samples.size() << " steps to " << o.steps_out << "\n";
    }
    return 0;
  } catch (const std::invalid_argument& e) {  // UsageError included
    return report_usage_error(err, "llmsim calibrate", e);
  } catch (const std::exception& e) {
    err << "llmsim calibrate: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace llm
