#include "sim/replay/slo.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <stdexcept>

#include "sim/replay/summary_figures.h"

namespace llm {
namespace {

TEST(Slo, ParsesKeysAndValuesWithTheirUnits) {
  struct Row {
    const char* text;
    const char* key;
    double target;
  };
  for (const Row& row :
       {Row{"ttft_p99=2s", "ttft_p99", 2.0}, Row{"tpot_p99=100ms", "tpot_p99", 0.1},
        Row{"itl_p50=250us", "itl_p50", 250e-6}, Row{"e2e_mean=1.5s", "e2e_mean", 1.5},
        Row{"duration_s=90s", "duration_s", 90}, Row{"preemptions=0", "preemptions", 0},
        Row{"peak_kv_usage=0.9", "peak_kv_usage", 0.9},
        Row{"output_tokens_per_s=800", "output_tokens_per_s", 800}}) {
    const std::vector<SloTarget> t = parse_slo(row.text);
    ASSERT_EQ(t.size(), 1u) << row.text;
    EXPECT_EQ(t[0].key, row.key) << row.text;
    EXPECT_DOUBLE_EQ(t[0].target, row.target) << row.text;
  }
  const std::vector<SloTarget> t = parse_slo("ttft_p99=2s,tpot_p99=100ms,preemptions=3");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].key, "ttft_p99");
  EXPECT_EQ(t[1].key, "tpot_p99");
  EXPECT_EQ(t[2].key, "preemptions");
  EXPECT_EQ(t[1].text, "100ms");
}

std::string parse_error(const std::string& text) {
  try {
    parse_slo(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Slo, BadItemsAreNamedInTheError) {
  struct Row {
    const char* text;
    const char* message_start;
  };
  for (const Row& row : {
           Row{"", "expected KEY=VALUE,... such as ttft_p99=2s"},
           Row{"ttft_p99=2s,", "empty item in 'ttft_p99=2s,'"},
           Row{"ttft_p99", "ttft_p99: expected KEY=VALUE"},
           Row{"ttft_p98=2s", "ttft_p98=2s: unknown figure 'ttft_p98'; accepted: ttft_mean, "},
           Row{"ttft_p99=", "ttft_p99=: missing value after '='"},
           Row{"ttft_p99=2",
               "ttft_p99=2: ttft_p99 is a latency: expected a non-negative number "
               "with a unit s, ms or us"},
           Row{"ttft_p99=2m", "ttft_p99=2m: ttft_p99 is a latency"},
           Row{"ttft_p99=-1s", "ttft_p99=-1s: ttft_p99 is a latency"},
           Row{"ttft_p99=ms", "ttft_p99=ms: ttft_p99 is a latency"},
           Row{"ttft_p99=nans", "ttft_p99=nans: ttft_p99 is a latency"},
           Row{"preemptions=3s", "preemptions=3s: preemptions takes a plain non-negative number"},
           Row{"preemptions=-1", "preemptions=-1: preemptions takes a plain"},
           Row{"ttft_p99=1s,ttft_p99=2s", "ttft_p99=2s: ttft_p99 given twice"},
       }) {
    const std::string message = parse_error(row.text);
    EXPECT_EQ(message.rfind(row.message_start, 0), 0u) << row.text << " -> " << message;
  }
  // The unknown-key message lists every accepted key.
  const std::string message = parse_error("x=1");
  for (const std::string& key : summary_figure_keys()) {
    EXPECT_NE(message.find(key), std::string::npos) << key;
  }
}

TEST(Slo, LatencyFiguresAreTheDistributionsAndTheDuration) {
  for (const char* key :
       {"ttft_p99", "tpot_mean", "queue_max", "itl_p50", "e2e_p90", "duration_s"}) {
    EXPECT_TRUE(is_latency_figure(key)) << key;
  }
  for (const char* key : {"preemptions", "peak_kv_usage", "output_tokens_per_s", "steps",
                          "prefix_hit_rate", "peak_waiting", "nonsense_p99"}) {
    EXPECT_FALSE(is_latency_figure(key)) << key;
  }
}

TEST(Slo, AFigureMissesWhenWorseInItsDirection) {
  ReplaySummary s;
  s.ttft.p99 = 2.0;
  s.tpot.p99 = 0.12;
  s.preemptions = 3;
  s.output_tokens_per_s = 500;
  struct Row {
    const char* slo;
    bool met;
  };
  for (const Row& row :
       {Row{"ttft_p99=2s", true}, Row{"ttft_p99=1999ms", false}, Row{"tpot_p99=100ms", false},
        Row{"tpot_p99=120ms", true}, Row{"preemptions=3", true}, Row{"preemptions=2", false},
        Row{"output_tokens_per_s=500", true}, Row{"output_tokens_per_s=501", false}}) {
    const std::vector<SloResult> r = check_slo(s, parse_slo(row.slo));
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].met, row.met) << row.slo;
    EXPECT_EQ(all_met(r), row.met) << row.slo;
  }
  const std::vector<SloResult> both = check_slo(s, parse_slo("ttft_p99=3s,tpot_p99=100ms"));
  ASSERT_EQ(both.size(), 2u);
  EXPECT_TRUE(both[0].met);
  EXPECT_FALSE(both[1].met);
  EXPECT_FALSE(all_met(both));
  EXPECT_DOUBLE_EQ(both[1].value, 0.12);
  EXPECT_DOUBLE_EQ(both[1].target, 0.1);
}

TEST(Slo, AFigureWithoutSamplesMissesItsTarget) {
  ReplaySummary s;
  s.ttft.p99 = NAN;
  EXPECT_FALSE(check_slo(s, parse_slo("ttft_p99=100s"))[0].met);
}

TEST(Slo, ResultsPrintFigureTargetAndVerdict) {
  ReplaySummary s;
  s.ttft.p99 = 1.25;
  s.tpot.p99 = 0.12;
  s.output_tokens_per_s = 900;
  EXPECT_EQ(format_slo_results(
                check_slo(s, parse_slo("ttft_p99=2s,tpot_p99=100ms,output_tokens_per_s=800"))),
            "slo ttft_p99             1.25 s <= 2 s  met\n"
            "slo tpot_p99             120 ms <= 100 ms  MISSED\n"
            "slo output_tokens_per_s  900 >= 800  met\n");
}

RC_GTEST_PROP(SloProperty, MetMeansNoWorseThanTheTargetForEveryKey, ()) {
  const std::vector<std::string>& keys = summary_figure_keys();
  const std::string key = keys[*rc::gen::inRange<size_t>(0, keys.size())];
  const int64_t value = *rc::gen::inRange<int64_t>(0, 5000);
  const int64_t target = *rc::gen::inRange<int64_t>(0, 5000);
  ReplaySummary s;
  // Every figure of the summary set to `value` (ms for latencies, plain otherwise).
  const double scale = is_latency_figure(key) ? 1e-3 : 1.0;
  for (Distribution* d :
       {&s.ttft, &s.request_ttft, &s.queue, &s.prefill, &s.decode, &s.e2e, &s.itl, &s.tpot}) {
    d->mean = d->p50 = d->p90 = d->p99 = d->max = value * 1e-3;
  }
  s.duration_s = value * 1e-3;
  s.input_tokens_per_s = s.output_tokens_per_s = s.prefix_hit_rate = s.peak_kv_usage =
      static_cast<double>(value);
  s.preemptions = s.peak_waiting = s.steps = value;
  const std::string slo = key + "=" + std::to_string(target) + (is_latency_figure(key) ? "ms" : "");
  const std::vector<SloTarget> targets = parse_slo(slo);
  RC_ASSERT(targets.size() == 1u);
  RC_ASSERT(std::abs(targets[0].target - target * scale) <= 1e-12 * (1 + target));
  const bool met = check_slo(s, targets)[0].met;
  RC_ASSERT(met == (lower_is_better(key) ? value <= target : value >= target));
}

}  // namespace
}  // namespace llm
