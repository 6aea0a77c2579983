#include "sim/capacity/capacity_report.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

WindowFigures kv_bound_hour() {
  WindowFigures w;
  w.window.begin = 3600'000'000'000;
  w.window.end = 7200'000'000'000;
  w.window.arrivals = 1234;
  w.early.mean_waiting = 2;
  w.late.mean_waiting = 40;
  w.peak_kv_usage = 1.0;
  w.preemptions = 17;
  w.peak_waiting = 55;
  w.early.mean_prefill_s = 0.05;
  w.late.mean_prefill_s = 0.25;
  w.early.mean_prompt_len = 900;
  w.late.mean_prompt_len = 1000;
  w.early.mean_itl_s = 0.01;
  w.late.mean_itl_s = 0.02;
  return w;
}

TEST(CapacityReport, SignalsPrintTheHourTheEvidenceAndTheResponse) {
  const std::string text = format_capacity_signals(kv_bound_hour(), 2);
  EXPECT_EQ(text.rfind("capacity signals at the busiest hour (trace time 3600-7200 s, 1234 "
                       "arrivals) with 2 engine(s):\n",
                       0),
            0u)
      << text;
  for (const char* line :
       {"  waiting requests (time-weighted mean, all engines): 2 in the first half, 40 in the "
        "second\n",
        "  peak KV-cache usage: 100.0%, preemptions: 17, peak waiting: 55\n",
        "  prefill time (mean): 50 ms in the first half, 250 ms in the second\n",
        "  prompt length (mean): 900 tokens in the first half, 1000 tokens in the second\n",
        "  inter-token latency (mean): 10 ms in the first half, 20 ms in the second\n",
        "  pattern: kv-bound: the waiting queue grows with the KV cache full (and preemptions)\n",
        "  response: more KV memory or GPUs: an fp8 KV cache (--kv-cache-dtype fp8)"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
  const nlohmann::ordered_json j = capacity_signals_json(kv_bound_hour(), 2);
  EXPECT_EQ(j["pattern"], "kv-bound");
  EXPECT_EQ(j["preemptions"], 17);
  EXPECT_DOUBLE_EQ(j["window_begin_s"].get<double>(), 3600);
}

TEST(CapacityReport, AWhatIfLineHasItsSloFiguresAndKvFigures) {
  CapacityPoint p;
  p.summary.ttft.p99 = 1.5;
  p.summary.num_gpu_blocks = 4000;
  p.slo = check_slo(p.summary, parse_slo("ttft_p99=2s,preemptions=0"));
  p.met = all_met(p.slo);
  p.window.preemptions = 3;
  p.window.peak_kv_usage = 0.5;
  EXPECT_EQ(format_what_if("--kv-cache-dtype fp8", p),
            "  --kv-cache-dtype fp8: ttft_p99 1.5 s met, preemptions 0 met; busiest hour: "
            "preemptions 3, peak KV 50.0%; KV blocks 4000  (meets the SLOs)\n");
  const nlohmann::ordered_json slo = capacity_slo_json(&p);
  EXPECT_DOUBLE_EQ(slo["ttft_p99"]["value"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(slo["ttft_p99"]["target"].get<double>(), 2.0);
  EXPECT_EQ(slo["ttft_p99"]["met"], true);
  EXPECT_EQ(capacity_summary_json(&p)["num_gpu_blocks"], 4000) << capacity_summary_json(&p).dump();
  EXPECT_TRUE(capacity_summary_json(nullptr).is_null());
  EXPECT_TRUE(capacity_slo_json(nullptr).is_null());
}

}  // namespace
}  // namespace llm
