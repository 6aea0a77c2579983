// Goodput and SLO attainment, as DistServe defines attainment and `vllm bench serve --goodput`
// defines goodput: a request is good when it completed and each per-request target holds (TTFT,
// TPOT, E2E; a request with one output token or none counts TPOT as 0); attainment is the share
// of requests that are good, goodput the good requests per second. Shared by llmsim (replays) and
// llmbench (loadgen/metrics.h), so both count a good request the same way.
// Thread-safety: plain values and pure functions.
#pragma once

#include <optional>
#include <string>

namespace llm {

// Per-request targets in seconds; an absent one is not checked.
struct GoodputTargets {
  std::optional<double> ttft_s;
  std::optional<double> tpot_s;
  std::optional<double> e2e_s;
  bool any() const { return ttft_s || tpot_s || e2e_s; }
};

// Whether one completed request meets every given target. `tpot_s` is the request's TPOT, 0 when
// it produced one output token or none.
bool meets_goodput(const GoodputTargets& targets, double ttft_s, double tpot_s, double e2e_s);

// "ttft <= 2 s, tpot <= 100 ms" (ms below one second), for messages and reports.
std::string describe_goodput(const GoodputTargets& targets);

}  // namespace llm
