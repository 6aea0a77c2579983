// The replay report end to end on a real (small) replay: the series read back from the
// MetricsRecorder agree with the run's own totals, and the report has every plot with data.
#include "sim/report/replay_sections.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>

#include "backends/sim/presets.h"
#include "core/observer_tee.h"
#include "core/vllm_metrics.h"
#include "sim/report/svg_text.h"
#include "sim/report/testing/xml_check.h"
#include "sim/trace/synthetic.h"

namespace llm {
namespace {

using testing::attribute;
using testing::start_tags;
using testing::xml_error;

struct SmallReplay {
  ReplaySummary summary;
  ReplayTimeSeries series;
  LatencyCdfs cdfs;
  size_t scrapes = 0;
};

// A synthetic trace on two small engines, recorded every second.
SmallReplay replay_two_engines() {
  ReplayConfig c;
  c.scheduler.block_size = 16;
  c.scheduler.max_model_len = 2048;
  c.scheduler.num_gpu_blocks = 400;
  c.scheduler.max_num_batched_tokens = 1024;
  c.deployment.gpu = *find_gpu_preset("H200");
  c.deployment.model = *find_model_preset("Llama-3.2-1B");
  c.data_parallel_size = 2;
  Trace trace = generate_synthetic(sharegpt_like(120, 20, 7));

  prometheus::Registry registry;
  VllmMetricFamilies families(registry, c.scheduler.max_model_len);
  const CacheConfigInfo cache = cache_config_info(c.scheduler, "auto", 0.9);
  ReplayReport report(nullptr);
  std::vector<std::unique_ptr<EngineMetrics>> metrics;
  std::vector<std::unique_ptr<ObserverTee>> tees;
  std::vector<EngineObserver*> observers;
  for (int i = 0; i < 2; ++i) {
    metrics.push_back(std::make_unique<EngineMetrics>(families, "m", i, cache));
    tees.push_back(std::make_unique<ObserverTee>());
    tees.back()->add(&report);
    tees.back()->add(metrics.back().get());
    observers.push_back(tees.back().get());
  }
  MetricsRecorder recorder(registry, {metrics[0].get(), metrics[1].get()});
  ReplayHooks hooks;
  hooks.scrape_interval = 1'000'000'000;
  hooks.on_scrape = [&recorder](Nanos t) { recorder.scrape(t); };
  const ReplayTotals totals = run_replay(trace, c, observers, hooks);
  SmallReplay out;
  out.summary =
      report.finish(totals.end_time, totals.sum(), static_cast<int64_t>(trace.requests.size()));
  out.series = replay_time_series(recorder);
  out.cdfs = latency_cdfs(report, kMaxCdfPoints);
  out.scrapes = recorder.num_scrapes();
  return out;
}

TEST(ReplayTimeSeries, ReadsEachEnginesSeriesAtEveryScrape) {
  const SmallReplay r = replay_two_engines();
  ASSERT_GT(r.scrapes, 3u);
  ASSERT_EQ(r.series.time_s.size(), r.scrapes);
  EXPECT_DOUBLE_EQ(r.series.time_s[1] - r.series.time_s[0], 1.0);
  ASSERT_EQ(r.series.engines.size(), 2u);
  double generated = 0, prompt = 0, peak_running = 0;
  for (const EngineSeries& e : r.series.engines) {
    for (const auto* v : {&e.running, &e.waiting, &e.kv_usage, &e.preemptions, &e.prompt_tokens,
                          &e.generation_tokens}) {
      ASSERT_EQ(v->size(), r.scrapes);
    }
    EXPECT_TRUE(std::is_sorted(e.generation_tokens.begin(), e.generation_tokens.end()));
    generated += e.generation_tokens.back();
    prompt += e.prompt_tokens.back();
    peak_running = std::max(peak_running, *std::max_element(e.running.begin(), e.running.end()));
    for (double u : e.kv_usage) EXPECT_TRUE(u >= 0 && u <= 1) << u;
  }
  EXPECT_GT(peak_running, 0);
  // The last scrape may come before the last token; never after more than the run produced.
  EXPECT_LE(generated, static_cast<double>(r.summary.completion_tokens));
  EXPECT_GT(generated, 0.5 * static_cast<double>(r.summary.completion_tokens));
  EXPECT_LE(prompt, static_cast<double>(r.summary.prompt_tokens));
}

TEST(LatencyCdfs, FromTheReportsOwnSamples) {
  const SmallReplay r = replay_two_engines();
  // Every per-request sample is in (120 requests <= 200 points), the ITL sketch at 200 points.
  EXPECT_EQ(r.cdfs.ttft.x.size(), static_cast<size_t>(r.summary.ttft.count));
  EXPECT_EQ(r.cdfs.e2e.x.size(), static_cast<size_t>(r.summary.e2e.count));
  EXPECT_EQ(r.cdfs.itl.x.size(), kMaxCdfPoints);
  EXPECT_DOUBLE_EQ(r.cdfs.ttft.x.back(), r.summary.ttft.max);
  EXPECT_DOUBLE_EQ(r.cdfs.e2e.x.back(), r.summary.e2e.max);
  EXPECT_DOUBLE_EQ(r.cdfs.tpot.x.back(), r.summary.tpot.max);
  EXPECT_DOUBLE_EQ(r.cdfs.itl.x.back(), r.summary.itl.max);
  EXPECT_NEAR(r.cdfs.itl.x[kMaxCdfPoints / 2 - 1], r.summary.itl.p50, 1e-3 * r.summary.itl.p50);
}

TEST(ReplayReportPage, EveryPlotIsPresentWithData) {
  const SmallReplay r = replay_two_engines();
  const std::string html = render_replay_report("llmsim replay synthetic:n=120", "synthetic",
                                                r.summary, r.series, r.cdfs);
  ASSERT_EQ(xml_error(html), "");
  std::map<std::string, int> points;
  for (const auto& svg : start_tags(html, "svg")) {
    points[attribute(svg, "data-plot")] = std::stoi(attribute(svg, "data-points"));
  }
  for (const char* id : {"requests", "kv_cache", "preemptions", "throughput", "engine_load",
                         "cdf_ttft", "cdf_tpot", "cdf_itl", "cdf_e2e"}) {
    ASSERT_TRUE(points.count(id)) << id;
    EXPECT_GT(points[id], 2) << id;
  }
  EXPECT_EQ(points.size(), 9u);
  for (const char* text :
       {"engine 0", "engine 1", "trace time (s)", "KV-cache usage (%)", "tokens per second",
        "TTFT (s)", "llmsim replay synthetic:n=120", "Trace: <b>synthetic</b>"}) {
    EXPECT_NE(html.find(text), std::string::npos) << text;
  }
}

// Each CDF marks p50, p90 and p99 at the summary's exact values: three markers whose legend
// names them with their figures.
TEST(ReplayReportPage, EachCdfMarksP50P90AndP99) {
  const SmallReplay r = replay_two_engines();
  const std::vector<ReportSection> sections = replay_sections(r.series, r.cdfs, r.summary);
  ASSERT_EQ(sections.size(), 2u);
  ASSERT_EQ(sections[1].figures.size(), 4u);
  for (const std::string& svg : sections[1].figures) {
    std::string marks;
    for (const auto& g : start_tags(svg, "g")) {
      if (attribute(g, "data-series").rfind("p50 ", 0) == 0) marks = g;
    }
    ASSERT_NE(marks, "") << svg.substr(0, 200);
    EXPECT_EQ(attribute(marks, "data-points"), "3");
    EXPECT_NE(attribute(marks, "data-series").find(",\np90 "), std::string::npos);
    EXPECT_NE(attribute(marks, "data-series").find(",\np99 "), std::string::npos);
  }
  // The TTFT marks carry the summary's figures ("p50 85.7 ms,", one line each).
  const std::string ttft = sections[1].figures[0];
  const double p50_ms = r.summary.ttft.p50 * 1e3;
  ASSERT_LT(p50_ms, 1000);
  EXPECT_NE(ttft.find("p50 " + short_number_text(p50_ms) + " ms,\np90 "), std::string::npos)
      << p50_ms;
}

TEST(ReplayReportPage, StaysSmallForALongRun) {
  // An hour at the default 5 s scrape interval, and a day: the plotted points stay bounded.
  for (size_t scrapes : {720u, 17280u}) {
    ReplayTimeSeries s;
    s.engines.resize(4);
    for (size_t k = 0; k < scrapes; ++k) {
      s.time_s.push_back(5.0 * static_cast<double>(k));
      for (EngineSeries& e : s.engines) {
        e.running.push_back(static_cast<double>((k * 7) % 13));
        e.waiting.push_back(static_cast<double>((k * 5) % 11));
        e.kv_usage.push_back(static_cast<double>(k % 100) / 100);
        e.preemptions.push_back(static_cast<double>(k / 3));
        e.prompt_tokens.push_back(1000.0 * static_cast<double>(k));
        e.generation_tokens.push_back(300.0 * static_cast<double>(k));
      }
    }
    std::vector<double> sorted(100000);
    std::iota(sorted.begin(), sorted.end(), 0.0);
    const XySeries cdf = cdf_of_sorted(sorted, kMaxCdfPoints);
    const std::string html =
        render_replay_report("c", "t", ReplaySummary{}, s, {cdf, cdf, cdf, cdf});
    EXPECT_LT(html.size(), 1u << 20) << scrapes;
    EXPECT_EQ(xml_error(html), "");
  }
}

}  // namespace
}  // namespace llm

namespace llm {
namespace {

TEST(SummaryFacts, LatenciesInMillisecondsBelowASecond) {
  ReplaySummary s;
  s.requests = 10;
  s.sequences = 12;
  s.ttft.p50 = 0.5;
  s.ttft.p99 = 16.5;
  s.tpot.p50 = 0.004551;
  s.tpot.p99 = 0.0052;
  s.preemptions = 98;
  s.peak_kv_usage = 0.25;
  std::map<std::string, std::string> facts;
  for (const auto& [label, value] : summary_facts(s)) facts[label] = value;
  EXPECT_EQ(facts["Requests (sequences)"], "10 (12)");
  EXPECT_EQ(facts["TTFT p50 / p99"], "500 ms / 16.5 s");
  EXPECT_EQ(facts["TPOT p50 / p99"], "4.551 ms / 5.2 ms");
  EXPECT_EQ(facts["Preemptions"], "98");
  EXPECT_EQ(facts["Peak KV-cache usage (any engine step; the chart shows scrapes)"], "25 %");
  EXPECT_EQ(facts["Overload"], "stable: no engine's waiting queue grew without draining");
}

}  // namespace
}  // namespace llm
