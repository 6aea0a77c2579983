#include "sim/cli/replay_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>

#include "backends/sim/presets.h"
#include "backends/sim/resolve_engine_args.h"
#include "core/engine_args.h"
#include "core/exposition.h"
#include "core/flag_set.h"
#include "core/observer_tee.h"
#include "core/pending_file.h"
#include "core/vllm_metrics.h"
#include "sim/cli/otlp_trace_writer.h"
#include "sim/faults/fault_schedule.h"
#include "sim/faults/fault_window.h"
#include "sim/replay/metrics_recorder.h"
#include "sim/replay/replay_input.h"
#include "sim/replay/replay_report.h"
#include "sim/replay/replay_reports.h"
#include "sim/replay/summarize_replay.h"
#include "sim/replay/summary_figures.h"
#include "sim/replay/target_metrics.h"
#include "sim/report/deployment_facts.h"
#include "sim/report/html_report.h"
#include "sim/report/replay_sections.h"
#include "sim/time_text.h"
#include "sim/trace/trace_io.h"
#include "ui/progress_bar.h"

namespace llm {

std::string replay_usage() {
  return R"(usage: llmsim replay TRACE [flags]

TRACE is a .json trace (traces/README.md), an Azure .csv, a Mooncake .jsonl (either also gzipped:
.csv.gz, .jsonl.gz), - for standard input (the format found from its first line), synthetic:KEY=V,...
or synthetic-week:KEY=V,... (a week of diurnal, bursty chat and code traffic; docs/cli.md)

)" + engine_flags_usage(gpu_preset_names(), model_preset_names()) +
         R"(Several engines:
  --data-parallel-size N           engines, each with its own KV cache (1)
  --routing-policy P               how requests are spread over the engines (round-robin):
                                   on the live state: round-robin, least-outstanding,
                                   prefix-affinity; on what llm-d's endpoint picker sees (scraped
                                   gauges, announced KV blocks): llm-d (its default profile:
                                   queue-scorer 2 + kv-cache-utilization-scorer 2 +
                                   prefix-cache-scorer 3), or one of those scorers alone:
                                   queue-scorer, kv-cache-utilization-scorer, prefix-cache-scorer
  --epp-scrape-interval D          llm-d policies: the picker scrapes each engine this often
                                   (50ms; 0 = it sees the live state)
  --epp-metrics-staleness D        llm-d policies: it routes on samples at least this old (0)
  --epp-scorer-weights W           llm-d policies: the profile, queue=W,kv-cache=W,prefix-cache=W
Simulation:
  --no-api-server                  requests reach the engine on arrival: no API server (HTTP,
                                   tokenization, streaming) in front of it (it is modelled
                                   where the GPU preset or the profile has its costs;
                                   docs/api-server.md)
  --api-server-count N             API server processes in front of the engines, request k
                                   read and streamed by process k mod N (one per engine, as
                                   `vllm serve --data-parallel-size` starts them)
  --seed N                         output-token and step-noise seed (0)
  --arrival-rate-scale F           multiply the arrival rate (2 = twice the load) (1)
  --load-scaling MODE              how: stretch (divide every arrival time by F: requests that
                                   arrive together stay together) or sample (below 1x keep each
                                   request with probability F; above, superpose shifted copies
                                   of the trace, the last thinned), drawn from --seed (stretch)
  --loop-to D                      repeat the trace back to back up to D of arrivals (1h, 30m)
  --start D / --end D              replay only the requests arriving from D to D of the trace
                                   (1h, 90m), their times counted from --start
  --sort-arrivals                  sort a trace whose rows are out of time order (without this
                                   flag such a trace is refused, naming the line)
  --sort-in-memory N               requests --sort-arrivals sorts in memory; beyond, sorted runs
                                   go to a scratch file under $TMPDIR and are merged (65536)
  --output-dir DIR                 write DIR/requests.jsonl and DIR/summary.json
  --metrics-out FILE               the replay's Prometheus metrics as OpenMetrics time series
  --promtool-series FILE           the same series as promtool test-rules input_series (YAML)
  --metrics-snapshot FILE          the /metrics text an engine would serve at the end of the run
  --report FILE                    a self-contained HTML report with plots (series, CDFs)
  --scrape-interval D              time between samples of those series (5s)
  --otlp-out FILE                  each request's llm_request span as OTLP JSON lines (the
                                   Collector's file exporter format), on --start-time's clock
  --collect-detailed-traces LIST   model|worker|all|engine (any): add the child spans (queued,
                                   prefill_chunk, preempted) to --otlp-out
  --start-time RFC3339             wall-clock time of the trace's start (2026-01-01T00:00:00Z)
  --slo KEY=V,...                  print these summary figures against their targets: latencies
                                   with a unit (ttft_p99=2s,tpot_p99=100ms,e2e_p99.9=30s), counts
                                   and ratios plain (preemptions=0,error_rate=0.01); per-request
                                   targets with attainment or goodput (ttft=2s,tpot=100ms,
                                   'attainment>=0.99'); refused and errored requests count as
                                   missed; any summary figure name (docs/cli.md)
  --metric-percentiles P,...       the percentiles of the summary and summary.json (50,90,95,99,
                                   99.9), as vllm bench serve's: 25,50,75,99.9
  --fail-on-slo                    exit 1 when a --slo target is missed
Faults (repeatable; times on the replay's clock, 0 = the trace's start: 0, 90s, 10m, 1h):
  --fault engine-down:ENGINE:FROM:TO
                                   the engine's server is down: its requests fail, new ones go to
                                   the engines that are up (fail when none is), no scrape (up 0);
                                   it comes back restarted (counters from 0, empty cache)
  --fault http-5xx:PERCENT:FROM:TO the API server answers that share of new requests with a 500
  --fault slow:ENGINE:FACTOR:FROM:TO
                                   the engine's steps take FACTOR times as long
  --quiet                          no summary table (the --slo lines are still printed)
  --no-progress                    no progress bar
  --samples-in-memory N            sequences whose samples (each latency, for exact
                                   percentiles) are held in memory before they spill to a scratch
                                   file under $TMPDIR in sorted runs (131072, about 13.6 MB, and
                                   as much for the engines' own; the figures do not change)
)";
}

namespace {

// "25,50,99.9": each a number in [0, 100], at most once.
std::vector<double> parse_metric_percentiles(const std::string& flag, const std::string& v) {
  std::vector<double> levels;
  size_t start = 0;
  while (start <= v.size()) {
    const size_t comma = std::min(v.find(',', start), v.size());
    const std::string item = v.substr(start, comma - start);
    start = comma + 1;
    const std::optional<FigureName> name = parse_figure_name("ttft_p" + item);
    if (!name) {
      throw UsageError(flag +
                       ": expected percentiles from 0 to 100 separated by commas, such "
                       "as 50,90,99.9; got '" +
                       item + "' in '" + v + "'");
    }
    if (std::find(levels.begin(), levels.end(), name->level) != levels.end()) {
      throw UsageError(flag + ": " + item + " given twice");
    }
    levels.push_back(name->level);
  }
  return levels;
}

// A duration for the EPP flags: 0 or a positive duration, whole microseconds.
int64_t parse_epp_duration(const std::string& flag, const std::string& v) {
  if (v == "0") return 0;
  const auto ns = parse_duration_ns(v);
  if (!ns || *ns % 1'000 != 0) {
    throw UsageError(flag + ": expected 0 or a duration such as 50ms, 200ms or 1s, got '" + v +
                     "'");
  }
  return *ns;
}

void check_epp_flags(const ReplayOptions& o) {
  const bool any = o.epp_scrape_interval_ns || o.epp_staleness_ns || o.epp_weights;
  if (any && !routes_on_scrapes(parse_routing_policy(o.routing_policy))) {
    throw UsageError(
        "--epp-scrape-interval, --epp-metrics-staleness and --epp-scorer-weights "
        "need an llm-d routing policy (llm-d, queue-scorer, "
        "kv-cache-utilization-scorer, prefix-cache-scorer), not --routing-policy " +
        o.routing_policy);
  }
  if (o.epp_staleness_ns.value_or(0) > 0 && o.epp_scrape_interval_ns == 0) {
    throw UsageError(
        "--epp-metrics-staleness: needs scrapes (--epp-scrape-interval 0 routes on "
        "the live state)");
  }
}

// A positive duration ("1h", "30m", "90s"), in nanoseconds.
int64_t parse_positive_duration_flag(const std::string& flag, const std::string& v) {
  const auto ns = parse_duration_ns(v);
  if (!ns || *ns <= 0) {
    throw UsageError(flag + ": expected a duration such as 1h, 30m or 90s, got '" + v + "'");
  }
  return *ns;
}

// The usage's "Several engines" group: how many engines and how requests reach them.
void add_replay_routing_flags(FlagSet& flags, ReplayOptions& o) {
  flags.integer({"--data-parallel-size"}, o.data_parallel_size, 1)
      .value({"--routing-policy"},
             [&o](const std::string&, const std::string& v) {
               parse_routing_policy(v);
               o.routing_policy = v;
             })
      .value({"--epp-scrape-interval"},
             [&o](const std::string& flag, const std::string& v) {
               o.epp_scrape_interval_ns = parse_epp_duration(flag, v);
             })
      .value({"--epp-metrics-staleness"},
             [&o](const std::string& flag, const std::string& v) {
               o.epp_staleness_ns = parse_epp_duration(flag, v);
             })
      .value({"--epp-scorer-weights"}, [&o](const std::string& flag, const std::string& v) {
        try {
          o.epp_weights = parse_scorer_weights(v);
        } catch (const std::invalid_argument& e) {
          throw UsageError(flag + ": " + e.what());
        }
      });
}

// How the trace is read and scaled: seed, load, loops and the window.
void add_replay_load_flags(FlagSet& flags, ReplayOptions& o) {
  flags
      .value({"--seed"}, [&o](const std::string& flag,
                              const std::string& v) { o.seed = parse_uint_flag(flag, v); })
      .value({"--arrival-rate-scale"},
             [&o](const std::string& flag, const std::string& v) {
               o.arrival_rate_scale = parse_double_above_flag(flag, v, 0);
             })
      .value({"--load-scaling"},
             [&o](const std::string& flag, const std::string& v) {
               parse_choice_flag(flag, v, {"stretch", "sample"});
               o.load_scaling = parse_load_scaling_mode(v);
             })
      .value({"--loop-to"},
             [&o](const std::string& flag, const std::string& v) {
               o.loop_to_ns = parse_positive_duration_flag(flag, v);
             })
      .value({"--start"},
             [&o](const std::string& flag, const std::string& v) {
               const auto ns = v == "0" ? std::optional<int64_t>(0) : parse_duration_ns(v);
               if (!ns) {
                 throw UsageError(flag + ": expected a duration such as 0, 1h, 30m or 90s, got '" +
                                  v + "'");
               }
               o.window_start_ns = *ns;
             })
      .value({"--end"},
             [&o](const std::string& flag, const std::string& v) {
               o.window_end_ns = parse_positive_duration_flag(flag, v);
             })
      .boolean({"--sort-arrivals"}, o.sort_arrivals)
      .boolean({"--no-api-server"}, o.api_server, false)
      .integer({"--api-server-count"}, o.api_server_count, 1);
}

// The files a replay writes and the series' clock.
void add_replay_output_flags(FlagSet& flags, ReplayOptions& o) {
  flags.nonempty({"--served-model-name"}, o.served_model_name, "name")
      .nonempty({"--output-dir"}, o.output_dir)
      .nonempty({"--metrics-out"}, o.metrics_out)
      .nonempty({"--promtool-series"}, o.promtool_series)
      .nonempty({"--metrics-snapshot"}, o.metrics_snapshot)
      .nonempty({"--report"}, o.report)
      .nonempty({"--otlp-out"}, o.otlp_out)
      .value({"--collect-detailed-traces"},
             [&o](const std::string& flag, const std::string& v) {
               check_detailed_traces_flag(flag, v);
               o.detailed_traces = true;
             })
      .value({"--scrape-interval"},
             [&o](const std::string& flag, const std::string& v) {
               const auto ns = parse_duration_ns(v);
               if (!ns || *ns % 1'000'000 != 0) {
                 throw UsageError(flag + ": expected a duration such as 5s, 500ms or 1m, got '" +
                                  v + "'");
               }
               o.scrape_interval_ns = *ns;
             })
      .value({"--start-time"}, [&o](const std::string& flag, const std::string& v) {
        const auto ns = parse_rfc3339_ns(v);
        if (!ns) {
          throw UsageError(
              flag + ": expected an RFC 3339 time such as 2026-01-01T00:00:00Z, got '" + v + "'");
        }
        o.start_time_unix_ns = *ns;
      });
}

// What is printed and checked: SLOs, percentiles, faults, the summary and the progress bar.
void add_replay_summary_flags(FlagSet& flags, ReplayOptions& o) {
  flags
      .value({"--metric-percentiles"},
             [&o](const std::string& flag, const std::string& v) {
               o.metric_percentiles = parse_metric_percentiles(flag, v);
             })
      .value({"--slo"}, [&o](const std::string&, const std::string& v) { o.slo = parse_slo(v); })
      .boolean({"--fail-on-slo"}, o.fail_on_slo)
      .value({"--fault"},
             [&o](const std::string& flag, const std::string& v) {
               try {
                 o.faults.push_back(parse_fault(v));
               } catch (const FaultSpecError& e) {
                 throw UsageError(flag + " " + v + ": " + e.what());
               }
             })
      .boolean({"--quiet"}, o.quiet)
      .boolean({"--no-progress"}, o.progress, false)
      .integer({"--samples-in-memory"}, o.samples_in_memory, 1)
      .integer({"--sort-in-memory"}, o.sort_in_memory, 1);
}

// The checks across flags, after every flag was read.
void check_replay_flags(const ReplayOptions& o) {
  if (o.window_end_ns >= 0 && o.window_end_ns <= o.window_start_ns) {
    throw UsageError("--end: must be after --start");
  }
  if (o.fail_on_slo && o.slo.empty()) throw UsageError("--fail-on-slo: needs --slo KEY=V,...");
  check_epp_flags(o);
  if (o.detailed_traces && o.otlp_out.empty()) {
    throw UsageError("--collect-detailed-traces: needs --otlp-out FILE");
  }
}

}  // namespace

ReplayOptions parse_replay_args(const std::vector<std::string>& args) {
  ReplayOptions o;
  bool have_trace = false;
  EngineFlagParser engine;
  FlagSet flags("llmsim replay");
  engine.add_to(flags);
  add_replay_routing_flags(flags, o);
  add_replay_load_flags(flags, o);
  add_replay_output_flags(flags, o);
  add_replay_summary_flags(flags, o);
  flags.positional([&](const std::string& arg) {
    if (have_trace) throw UsageError("unexpected argument '" + arg + "' (one TRACE only)");
    o.trace_path = arg;
    have_trace = true;
  });
  flags.parse(args);
  if (!have_trace) throw UsageError("missing TRACE (a trace file or synthetic:...)");
  check_replay_flags(o);
  o.engine = engine.args();
  o.command_line = shell_command_line("llmsim replay", args);
  return o;
}

namespace fs = std::filesystem;

int run_replay_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (wants_help(args)) {
    out << replay_usage();
    return 0;
  }
  ReplayOptions options;
  try {
    options = parse_replay_args(args);
  } catch (const UsageError& e) {
    return report_usage_error(err, "llmsim replay", e);
  }
  ProgressBar bar("replay", options.progress);
  const int code = execute_replay(options, out, err,
                                  [&bar](int64_t done, int64_t total) { bar.update(done, total); });
  bar.finish();
  return code;
}

namespace {

// The files a replay writes, each under a temporary name until it is committed after the run
// succeeded; opened before the run, so that a bad path fails first.
struct ReplayFiles {
  std::unique_ptr<PendingFile> requests, summary, metrics, series, snapshot, otlp, report;
};

// `report_to_caller`: the report is left to execute_replay's caller, not written.
ReplayFiles open_replay_files(const ReplayOptions& o, bool report_to_caller) {
  ReplayFiles f;
  if (!o.output_dir.empty()) {
    std::error_code ec;
    fs::create_directories(o.output_dir, ec);
    if (ec) throw UsageError("--output-dir: cannot create " + o.output_dir + ": " + ec.message());
    for (const char* name : {"requests.jsonl", "summary.json"}) {
      fs::remove(fs::path(o.output_dir) / name, ec);
    }
    f.requests =
        std::make_unique<PendingFile>("--output-dir", fs::path(o.output_dir) / "requests.jsonl");
    f.summary =
        std::make_unique<PendingFile>("--output-dir", fs::path(o.output_dir) / "summary.json");
  }
  if (!o.metrics_out.empty()) {
    f.metrics = std::make_unique<PendingFile>("--metrics-out", o.metrics_out);
  }
  if (!o.promtool_series.empty()) {
    f.series = std::make_unique<PendingFile>("--promtool-series", o.promtool_series);
  }
  if (!o.metrics_snapshot.empty()) {
    f.snapshot = std::make_unique<PendingFile>("--metrics-snapshot", o.metrics_snapshot);
  }
  if (!o.otlp_out.empty()) f.otlp = std::make_unique<PendingFile>("--otlp-out", o.otlp_out);
  if (!o.report.empty() && !report_to_caller) {
    f.report = std::make_unique<PendingFile>("--report", o.report);
  }
  return f;
}

// What a replay's observers record: the replay's reports (sim/replay/replay_reports.h: the
// whole-run report streaming requests.jsonl, one per engine, the overload test), the OTLP spans,
// and vLLM's metrics with the recorder of their time series when a series, a snapshot or the
// report is wanted.
struct ReplayRecording {
  ReplayRecording(const ReplayInput& input, size_t num_engines, std::ostream* requests,
                  size_t samples_in_memory)
      : reports(input.facts.requests, input.facts.first_arrival_ns, input.facts.last_arrival_ns,
                num_engines, requests, samples_in_memory) {}

  bool want_metrics = false;  // --metrics-out, --promtool-series, --metrics-snapshot or a report
  bool want_series = false;   // the same but the snapshot: scrapes during the run
  ReplayReports reports;
  prometheus::Registry registry;
  std::unique_ptr<TargetMetrics> targets;  // up and the HTTP metrics, for the series exports
  std::unique_ptr<VllmMetricFamilies> families;
  std::vector<std::unique_ptr<EngineMetrics>> engine_metrics;
  std::unique_ptr<OtlpTraceWriter> spans;
  std::unique_ptr<MetricsRecorder> recorder;
  ReportFacts report_facts;  // the deployment and the SLO verdict, first in the report's facts
};

// Adds the spans and metrics observers to every engine of the replay.
void observe_engines(const ReplayOptions& o, const ReplayConfig& config,
                     const ResolvedEngine& engine, const ReplayFiles& files, ReplayRecording& rec) {
  const size_t num_engines = static_cast<size_t>(config.data_parallel_size);
  if (rec.want_metrics) {
    rec.families =
        std::make_unique<VllmMetricFamilies>(rec.registry, config.scheduler.max_model_len);
  }
  const CacheConfigInfo cache =
      cache_config_info(config.scheduler, engine.kv_cache_dtype, o.engine.gpu_memory_utilization,
                        o.engine.num_gpu_blocks_override);
  const std::string model_name =
      o.served_model_name.empty() ? engine.model_name : o.served_model_name;
  if (rec.want_series) rec.targets = std::make_unique<TargetMetrics>(num_engines);
  if (files.otlp) {
    rec.spans = std::make_unique<OtlpTraceWriter>(files.otlp->stream(), model_name,
                                                  o.start_time_unix_ns, o.seed, o.detailed_traces);
  }
  for (size_t i = 0; i < num_engines; ++i) {
    ObserverTee& tee = rec.reports.tee(i);
    if (rec.spans) tee.add(rec.spans->add_engine());
    if (rec.want_metrics) {
      rec.engine_metrics.push_back(
          std::make_unique<EngineMetrics>(*rec.families, model_name, static_cast<int>(i), cache));
      tee.add(rec.engine_metrics.back().get());
    }
    if (rec.targets) tee.add(rec.targets->observer(i));
  }
  std::vector<EngineMetrics*> metric_ptrs;
  for (auto& m : rec.engine_metrics) metric_ptrs.push_back(m.get());
  rec.recorder = std::make_unique<MetricsRecorder>(rec.registry, metric_ptrs);
  if (rec.targets) {
    rec.recorder->add_registry(rec.targets->registry());
    rec.recorder->set_scrape_targets(&TargetMetrics::scrape_target);
  }
}

// Runs the replay under the recording's observers; returns its summary, with a summary per engine
// when there are several.
ReplaySummary run_recorded_replay(const ReplayOptions& o, ReplayInput& input,
                                  const ReplayConfig& config, const ProgressFn& progress,
                                  ReplayRecording& rec) {
  const int64_t total = input.facts.sequences;
  ReplayHooks hooks;
  hooks.on_client_times = rec.reports.client_times();
  if (progress) {
    hooks.on_step = [&](size_t, const EngineCore&) {
      progress(rec.reports.report().num_finished(), total);
    };
  }
  const size_t num_engines = static_cast<size_t>(config.data_parallel_size);
  const FaultSchedule faults(config.faults.windows, num_engines, config.seed);
  if (rec.want_series) {
    hooks.scrape_interval = o.scrape_interval_ns;
    MetricsRecorder* recorder = rec.recorder.get();
    TargetMetrics* targets = rec.targets.get();
    hooks.on_scrape = [recorder, targets, &faults, num_engines](Nanos t) {
      std::vector<bool> down;
      if (faults.any_down(t)) {
        for (size_t i = 0; i < num_engines; ++i) down.push_back(faults.engine_down(i, t));
      }
      targets->set_up(down);
      recorder->scrape(t, down);
    };
    hooks.on_restart = [recorder](size_t engine, Nanos) { recorder->restart_target(engine); };
  }
  hooks.on_failed = [&](size_t request, const TraceRequest& entry, size_t engine, int status,
                        Nanos t) {
    rec.reports.on_failed(entry, request, engine, t);
    if (rec.targets && engine != kNoEngine) rec.targets->record_failed(engine, status);
  };
  std::unique_ptr<RequestStream> stream = input.open();
  const ReplayTotals totals = run_replay(*stream, config, rec.reports.observers(), hooks);
  return rec.reports.finish(totals, o, input.load);
}

// Writes what the run recorded into its files and commits them, summary.json (the summary's JSON)
// last; the report goes to `report_out` instead when the caller asked for it.
void write_replay_files(const ReplayOptions& o, const ReplaySummary& summary, ReplayFiles& files,
                        ReplayRecording& rec, HtmlReport* report_out) {
  if (files.otlp) {
    rec.spans->finish();
    files.otlp->commit();
  }
  if (files.snapshot) {
    for (auto& m : rec.engine_metrics) m->flush();
    files.snapshot->stream() << serialize_exposition(rec.registry.Collect());
    files.snapshot->commit();
  }
  if (files.metrics) {
    rec.recorder->write_openmetrics(files.metrics->stream(), o.start_time_unix_ns);
    files.metrics->commit();
  }
  if (files.series) {
    rec.recorder->write_promtool_series(files.series->stream(), o.scrape_interval_ns);
    files.series->commit();
  }
  if (files.report || (report_out && !o.report.empty())) {
    HtmlReport html = replay_html_report(o.command_line, fs::path(o.trace_path).filename().string(),
                                         summary, replay_time_series(*rec.recorder),
                                         latency_cdfs(rec.reports.report(), kMaxCdfPoints));
    html.facts.insert(html.facts.begin(), rec.report_facts.begin(), rec.report_facts.end());
    if (!o.faults.empty()) html.facts.push_back({"Faults", faults_text(o.faults)});
    if (report_out) {
      *report_out = std::move(html);
    } else {
      files.report->stream() << render_html_report(html);
      files.report->commit();
    }
  }
  if (files.summary) {
    files.summary->stream() << format_summary_json(summary);
    files.requests->commit();
    files.summary->commit();
  }
}

}  // namespace

int execute_replay(const ReplayOptions& o, std::ostream& out, std::ostream& err,
                   const ProgressFn& progress, HtmlReport* report_out) {
  try {
    ResolvedEngine engine;
    const ReplayConfig config = make_replay_config(o, &engine);
    ReplayInput input(o);
    if (const std::string warning = stretch_warning(input.load); !warning.empty()) {
      err << "llmsim replay: warning: " << warning << "\n";
    }
    ReplayFiles files = open_replay_files(o, report_out != nullptr);
    ReplayRecording rec(input, static_cast<size_t>(config.data_parallel_size),
                        files.requests ? &files.requests->stream() : nullptr,
                        static_cast<size_t>(o.samples_in_memory));
    const bool want_report = files.report || (report_out && !o.report.empty());
    rec.want_metrics = files.metrics || files.series || files.snapshot || want_report;
    rec.want_series = files.metrics || files.series || want_report;
    rec.reports.report().reserve(input.facts.sequences);
    observe_engines(o, config, engine, files, rec);
    const ReplaySummary summary = run_recorded_replay(o, input, config, progress, rec);
    rec.report_facts =
        deployment_facts(o.engine, engine, config.data_parallel_size, o.routing_policy);
    const ReportFacts slo_verdict = slo_facts(o.slo, check_slo(summary, o.slo));
    rec.report_facts.insert(rec.report_facts.end(), slo_verdict.begin(), slo_verdict.end());
    write_replay_files(o, summary, files, rec, report_out);
    // The text: the summary table (summary.json's figures) and the SLOs checked against them.
    if (!o.quiet) out << format_summary_table(summary);
    if (!o.quiet && !o.faults.empty()) out << "Faults: " << faults_text(o.faults) << "\n";
    if (!o.slo.empty()) {
      const std::vector<SloResult> slo = check_slo(summary, o.slo);
      out << format_slo_results(slo);
      if (o.fail_on_slo && !all_met(slo)) return 1;
    }
    return 0;
  } catch (const TraceError& e) {
    return report_usage_error(err, "llmsim replay", e);
  } catch (const std::invalid_argument& e) {  // UsageError included
    return report_usage_error(err, "llmsim replay", e);
  } catch (const std::exception& e) {  // I/O failures
    err << "llmsim replay: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace llm
