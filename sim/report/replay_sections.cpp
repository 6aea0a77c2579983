#include "sim/report/replay_sections.h"

#include <algorithm>
#include <tuple>

#include "sim/replay/overload.h"
#include "sim/replay/summary_figures.h"
#include "sim/report/svg_plot.h"
#include "sim/report/svg_text.h"

namespace llm {
namespace {

PlotSeries time_line(const std::string& name, const std::vector<double>& time_s,
                     const std::vector<double>& values, double scale = 1) {
  XySeries xy{time_s, values};
  xy.x.resize(std::min(time_s.size(), values.size()));
  xy.y.resize(xy.x.size());
  for (double& v : xy.y) v *= scale;
  XySeries thin = downsample_envelope(xy, kMaxSeriesPoints);
  return {name, std::move(thin.x), std::move(thin.y)};
}

PlotSeries rate_line(const std::string& name, const std::vector<double>& time_s,
                     const std::vector<double>& counter) {
  XySeries thin = downsample_envelope(counter_rate(time_s, counter), kMaxSeriesPoints);
  return {name, std::move(thin.x), std::move(thin.y)};
}

// Element-wise sums of one field over the engines.
std::vector<double> total(const ReplayTimeSeries& s, std::vector<double> EngineSeries::*field) {
  std::vector<double> sum(s.time_s.size(), 0.0);
  for (const EngineSeries& e : s.engines) {
    const std::vector<double>& v = e.*field;
    for (size_t i = 0; i < std::min(sum.size(), v.size()); ++i) sum[i] += v[i];
  }
  return sum;
}

std::string engine_name(size_t i) { return "engine " + std::to_string(i); }

Plot time_plot(const std::string& id, const std::string& title, const std::string& y_label) {
  Plot p;
  p.id = id;
  p.title = title;
  p.x_label = "trace time (s)";
  p.y_label = y_label;
  return p;
}

// A latency figure in ms below a second, in s from there ("85.71 ms", "16.5 s").
std::string latency_text(const ReplaySummary& s, const char* key) {
  const auto v = summary_figure(s, key);
  if (!v) return "n/a";
  return *v < 1 ? short_number_text(*v * 1e3) + " ms" : short_number_text(*v) + " s";
}

std::string pair_text(const ReplaySummary& s, const std::string& distribution) {
  return latency_text(s, (distribution + "_p50").c_str()) + " / " +
         latency_text(s, (distribution + "_p99").c_str());
}

// The CDF of one distribution ("ttft") with its p50, p90 and p99 marked: a marker at each (the
// summary's exact percentile, not one read off the thinned curve) whose legend entry gives the
// values, one line each, so a reader need not read them off the axis.
Plot cdf_plot(const std::string& id, const std::string& what, const std::string& distribution,
              const XySeries& cdf, const ReplaySummary& summary) {
  Plot p;
  p.id = id;
  p.title = what + " CDF";
  p.x_label = what + " (s)";
  p.y_label = "fraction of samples <= x";
  p.series.push_back({what, cdf.x, cdf.y});
  PlotSeries marks{"", {}, {}, false, true};
  for (const auto& [name, fraction] : {std::pair{"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}}) {
    const auto v = summary_figure(summary, distribution + "_" + name);
    if (!v) continue;
    marks.x.push_back(*v);
    marks.y.push_back(fraction);
    marks.name += (marks.name.empty() ? "" : ",\n") + std::string(name) + " " +
                  latency_text(summary, (distribution + "_" + name).c_str());
  }
  if (!marks.x.empty()) p.series.push_back(std::move(marks));
  return p;
}

}  // namespace

std::vector<ReportSection> replay_sections(const ReplayTimeSeries& s, const LatencyCdfs& cdfs,
                                           const ReplaySummary& summary) {
  const std::vector<double>& t = s.time_s;
  ReportSection over_time{"over-time", "Over time", "", {}};
  over_time.note = "The simulated Prometheus series at each scrape (" + std::to_string(t.size()) +
                   " scrapes, " + std::to_string(s.engines.size()) +
                   (s.engines.size() == 1 ? " engine" : " engines") +
                   "); long runs are thinned to each interval's lowest and highest value.";

  Plot requests = time_plot("requests", "Requests running and waiting", "requests");
  requests.series.push_back(time_line("running", t, total(s, &EngineSeries::running)));
  requests.series.push_back(time_line("waiting", t, total(s, &EngineSeries::waiting)));

  // Scraped: the gauge at each scrape, which can miss the peak of a step between two scrapes.
  Plot kv = time_plot("kv_cache", "KV-cache usage (per scrape)", "KV-cache usage (%)");
  Plot preemptions = time_plot("preemptions", "Preemptions", "preemptions per second");
  Plot load = time_plot("engine_load", "Per-engine load (running + waiting)", "requests");
  for (size_t i = 0; i < s.engines.size(); ++i) {
    const EngineSeries& e = s.engines[i];
    kv.series.push_back(time_line(engine_name(i), t, e.kv_usage, 100));
    preemptions.series.push_back(rate_line(engine_name(i), t, e.preemptions));
    std::vector<double> busy(e.running);
    for (size_t k = 0; k < std::min(busy.size(), e.waiting.size()); ++k) busy[k] += e.waiting[k];
    load.series.push_back(time_line(engine_name(i), t, busy));
  }

  Plot throughput = time_plot("throughput", "Token throughput", "tokens per second");
  throughput.series.push_back(rate_line("prompt", t, total(s, &EngineSeries::prompt_tokens)));
  throughput.series.push_back(
      rate_line("generation", t, total(s, &EngineSeries::generation_tokens)));

  for (const Plot* p : {&requests, &kv, &preemptions, &throughput, &load}) {
    over_time.figures.push_back(render_svg_plot(*p));
  }

  ReportSection latency{"latency",
                        "Latency distributions",
                        "Empirical CDFs: TTFT from arrival to first token, TPOT per request, ITL "
                        "over every gap between tokens, E2E from arrival to finish; the markers "
                        "are p50, p90 and p99.",
                        {}};
  const std::tuple<const char*, const char*, const XySeries*> distributions[] = {
      {"ttft", "TTFT", &cdfs.ttft},
      {"tpot", "TPOT", &cdfs.tpot},
      {"itl", "ITL", &cdfs.itl},
      {"e2e", "E2E", &cdfs.e2e}};
  for (const auto& [key, what, cdf] : distributions) {
    latency.figures.push_back(
        render_svg_plot(cdf_plot(std::string("cdf_") + key, what, key, *cdf, summary)));
  }
  return {std::move(over_time), std::move(latency)};
}

std::vector<std::pair<std::string, std::string>> summary_facts(const ReplaySummary& s) {
  std::vector<std::pair<std::string, std::string>> f;
  f.emplace_back("Requests (sequences)",
                 std::to_string(s.requests) + " (" + std::to_string(s.sequences) + ")");
  f.emplace_back("Duration", short_number_text(s.duration_s) + " s");
  f.emplace_back("Output throughput", short_number_text(s.output_tokens_per_s) + " tokens/s");
  f.emplace_back("TTFT p50 / p99", pair_text(s, "ttft"));
  f.emplace_back("TPOT p50 / p99", pair_text(s, "tpot"));
  f.emplace_back("ITL p50 / p99", pair_text(s, "itl"));
  f.emplace_back("E2E p50 / p99", pair_text(s, "e2e"));
  f.emplace_back("Preemptions", std::to_string(s.preemptions));
  f.emplace_back("Overload", describe_overload(s.overload));
  f.emplace_back("Peak KV-cache usage (any engine step; the chart shows scrapes)",
                 short_number_text(s.peak_kv_usage * 100) + " %");
  return f;
}

HtmlReport replay_html_report(const std::string& command_line, const std::string& trace_name,
                              const ReplaySummary& summary, const ReplayTimeSeries& series,
                              const LatencyCdfs& cdfs) {
  HtmlReport r;
  r.title = "llmsim replay";
  r.command_line = command_line;
  r.trace_name = trace_name;
  r.facts = summary_facts(summary);
  r.sections = replay_sections(series, cdfs, summary);
  return r;
}

std::string render_replay_report(const std::string& command_line, const std::string& trace_name,
                                 const ReplaySummary& summary, const ReplayTimeSeries& series,
                                 const LatencyCdfs& cdfs) {
  return render_html_report(replay_html_report(command_line, trace_name, summary, series, cdfs));
}

}  // namespace llm
