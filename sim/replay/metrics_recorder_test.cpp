// The recorder's scrape targets: a scrape at which a target is down has no sample of its series
// (OpenMetrics: no line; promtool: `stale`, then `_`), other series and `up` keep theirs, and a
// restarted target's counters start again from 0 while its gauges keep reading the state.
#include "sim/replay/metrics_recorder.h"

#include <gtest/gtest.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>

#include <cmath>
#include <sstream>
#include <string>

#include "sim/replay/target_metrics.h"

namespace llm {
namespace {

constexpr Nanos kScrapeSec = 1'000'000'000;

// Two engines' counter and gauge, and `up`, as the replay's series exports see them.
struct TwoTargets {
  TwoTargets()
      : counters(prometheus::BuildCounter().Name("c").Help("c").Register(registry)),
        gauges(prometheus::BuildGauge().Name("g").Help("g").Register(registry)),
        targets(2),
        recorder(registry, {}) {
    for (const char* e : {"0", "1"}) {
      counter.push_back(&counters.Add({{"engine", e}}));
      gauge.push_back(&gauges.Add({{"engine", e}}));
    }
    recorder.add_registry(targets.registry());
    recorder.set_scrape_targets(&TargetMetrics::scrape_target);
  }
  void scrape(Nanos t, std::vector<bool> down) {
    targets.set_up(down);
    recorder.scrape(t, down);
  }
  std::string openmetrics() const {
    std::ostringstream out;
    recorder.write_openmetrics(out, 0);
    return out.str();
  }
  std::string promtool() const {
    std::ostringstream out;
    recorder.write_promtool_series(out, kScrapeSec);
    return out.str();
  }
  std::vector<double> values(const std::string& name, size_t which) const {
    return recorder.series_named(name).at(which).values;
  }

  prometheus::Registry registry;
  prometheus::Family<prometheus::Counter>& counters;
  prometheus::Family<prometheus::Gauge>& gauges;
  std::vector<prometheus::Counter*> counter;
  std::vector<prometheus::Gauge*> gauge;
  TargetMetrics targets;
  MetricsRecorder recorder;
};

std::string promtool_values(const std::string& text, const std::string& series) {
  const size_t at = text.find("- series: '" + series + "'\n    values: '");
  if (at == std::string::npos) return "(absent)";
  const size_t begin = text.find("values: '", at) + 9;
  return text.substr(begin, text.find('\'', begin) - begin);
}

TEST(MetricsRecorderTargets, ADownTargetHasNoSamplesAndUpSaysSo) {
  TwoTargets t;
  for (int k = 0; k < 6; ++k) {
    t.counter[0]->Increment();
    t.counter[1]->Increment();
    t.gauge[1]->Set(k);
    // Engine 1 is down at the scrapes 2, 3 and 4.
    t.scrape(k * kScrapeSec,
             k >= 2 && k <= 4 ? std::vector<bool>{false, true} : std::vector<bool>{});
  }
  const std::string om = t.openmetrics();
  EXPECT_NE(om.find("c_total{engine=\"1\"} 2 1\n"), std::string::npos) << om;
  EXPECT_EQ(om.find("c_total{engine=\"1\"} 3 2\n"), std::string::npos) << om;
  EXPECT_EQ(om.find("g{engine=\"1\"} 4 4\n"), std::string::npos) << om;
  EXPECT_NE(om.find("c_total{engine=\"1\"} 6 5\n"), std::string::npos) << om;
  EXPECT_NE(om.find("c_total{engine=\"0\"} 4 3\n"), std::string::npos) << om;  // engine 0 kept
  EXPECT_NE(om.find("up{instance=\"engine-1\",job=\"vllm\"} 0 3\n"), std::string::npos) << om;
  EXPECT_NE(om.find("up{instance=\"engine-1\",job=\"vllm\"} 1 5\n"), std::string::npos) << om;
  // Engine 1's http series are its target's too; engine 0's are sampled throughout.
  const std::string http1 =
      "http_requests_total{handler=\"/v1/completions\",instance=\"engine-1\",job=\"vllm\","
      "method=\"POST\",status=\"5xx\"}";
  EXPECT_EQ(om.find(http1 + " 0 3\n"), std::string::npos) << om;
  EXPECT_NE(om.find(http1 + " 0 5\n"), std::string::npos) << om;
  const std::string promtool = t.promtool();
  EXPECT_EQ(promtool_values(promtool, "c_total{engine=\"1\"}"), "1 2 stale _x2 6");
  EXPECT_EQ(promtool_values(promtool, "g{engine=\"1\"}"), "0 1 stale _x2 5");
  EXPECT_EQ(promtool_values(promtool, "c_total{engine=\"0\"}"), "1 2 3 4 5 6");
  EXPECT_EQ(promtool_values(promtool, "up{instance=\"engine-1\",job=\"vllm\"}"), "1x1 0x2 1");
  EXPECT_EQ(promtool_values(promtool, http1), "0x1 stale _x2 0");
  const std::vector<double> g1 = t.values("g", 1);
  EXPECT_TRUE(std::isnan(g1[3]));
  EXPECT_EQ(g1[5], 5);
}

TEST(MetricsRecorderTargets, ARestartedTargetCountsFromZero) {
  TwoTargets t;
  t.counter[0]->Increment(5);
  t.counter[1]->Increment(5);
  t.gauge[1]->Set(7);
  t.scrape(0, {});
  t.counter[1]->Increment(2);  // counted before the restart: gone with the old process
  t.recorder.restart_target(1);
  t.counter[1]->Increment(3);
  t.counter[0]->Increment(1);
  t.scrape(kScrapeSec, {});
  EXPECT_EQ(t.values("c_total", 0), (std::vector<double>{5, 6}));
  EXPECT_EQ(t.values("c_total", 1), (std::vector<double>{5, 3}));
  EXPECT_EQ(t.values("g", 1), (std::vector<double>{7, 7}));  // a gauge reads the state
  // A series that starts down has no sample, not a stale marker, at its first scrapes.
  TwoTargets u;
  u.scrape(0, {false, true});
  u.scrape(kScrapeSec, {false, true});
  u.scrape(2 * kScrapeSec, {});
  EXPECT_EQ(promtool_values(u.promtool(), "c_total{engine=\"1\"}"), "_x2 0");
}

TEST(TargetMetrics, ExchangesCarryTheStatusTheClientGot) {
  TargetMetrics targets(2);
  auto finished = [](const char* parent, int32_t n, FinishReason reason, Nanos arrival, Nanos end) {
    Request r;
    r.parent_id = parent;
    r.params.n = n;
    r.finish_reason = reason;
    r.timeline.arrival = arrival;
    r.timeline.queued = arrival;
    r.timeline.finished = end;
    return r;
  };
  EngineObserver& e0 = *targets.observer(0);
  e0.on_finished(finished("a", 1, FinishReason::kStop, 0, kScrapeSec / 5));
  e0.on_finished(finished("b", 1, FinishReason::kLength, 0, 2 * kScrapeSec));
  e0.on_finished(finished("c", 1, FinishReason::kAbort, 0, kScrapeSec));
  e0.on_finished(finished("d", 1, FinishReason::kError, 0, kScrapeSec));
  Request rejected = finished("e", 1, FinishReason::kError, 0, 0);
  rejected.timeline.queued = kNoTime;
  e0.on_finished(rejected);
  // n = 2: one exchange when both sequences finished, with the worst status of the two.
  e0.on_finished(finished("f", 2, FinishReason::kStop, 0, kScrapeSec));
  e0.on_finished(finished("f", 2, FinishReason::kError, 0, kScrapeSec));
  targets.record_failed(1, 500);
  targets.set_up({true, false});
  MetricsRecorder recorder(targets.registry(), {});
  recorder.scrape(0);
  auto value = [&](const std::string& series) {
    for (const auto& s : recorder.series_named(series.substr(0, series.find('{')))) {
      if (s.text == series) return s.values[0];
    }
    return -1.0;
  };
  auto requests = [](const char* instance, const char* status) {
    return std::string("http_requests_total{handler=\"/v1/completions\",instance=\"") + instance +
           "\",job=\"vllm\",method=\"POST\",status=\"" + status + "\"}";
  };
  EXPECT_EQ(value(requests("engine-0", "2xx")), 2);
  EXPECT_EQ(value(requests("engine-0", "4xx")), 2);  // the abort (499) and the rejection (400)
  EXPECT_EQ(value(requests("engine-0", "5xx")), 2);  // the error and the n = 2 request
  EXPECT_EQ(value(requests("engine-1", "5xx")), 1);
  EXPECT_EQ(value(requests("engine-1", "2xx")), 0);
  const std::string le =
      "http_request_duration_seconds_bucket{handler=\"/v1/completions\",instance=\"engine-0\","
      "job=\"vllm\",le=\"";
  EXPECT_EQ(value(le + "0.5\",method=\"POST\"}"), 2);  // 0.2 s and the rejection's 0 s
  EXPECT_EQ(value(le + "1.0\",method=\"POST\"}"), 5);
  EXPECT_EQ(value(le + "+Inf\",method=\"POST\"}"), 6);
  EXPECT_EQ(value("up{instance=\"engine-0\",job=\"vllm\"}"), 0);
  EXPECT_EQ(value("up{instance=\"engine-1\",job=\"vllm\"}"), 1);
  // The series of the one route the simulated clients use exist for each target, from the
  // start: POST /v1/completions x 3 statuses (no series of routes nobody called).
  EXPECT_EQ(recorder.series_named("http_requests_total").size(), 2u * 3u);
  EXPECT_EQ(recorder.series_named("http_request_duration_seconds_count").size(), 2u);
  EXPECT_EQ(TargetMetrics::scrape_target("up", {{"instance", "engine-1"}, {"job", "vllm"}}),
            std::nullopt);
  EXPECT_EQ(TargetMetrics::scrape_target("http_requests", {{"instance", "engine-1"}}), 1u);
  EXPECT_EQ(TargetMetrics::scrape_target("vllm:num_requests_running", {{"engine", "3"}}), 3u);
}

}  // namespace
}  // namespace llm
