// `llmsim alerts TRACE --rules FILE.yml [replay flags]`: replays the trace, evaluates every
// alerting rule of the file over the simulated series with a real Prometheus (alerts_prometheus.h,
// sim/alerts/alert_evaluation.h) and prints when each alert and label set went pending, fired and
// resolved. Exit code 0; 1 when --fail-on-fire sees an alert fire or an --expect-fire /
// --expect-quiet assertion is not met, or Prometheus cannot be run; 2 for bad usage or rules.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/cli/alerts_prometheus.h"
#include "sim/cli/replay_command.h"

namespace llm {

struct AlertsOptions {
  ReplayOptions replay;
  std::string rules_path;
  int64_t evaluation_interval_ns = 60'000'000'000;  // Prometheus's global default, 1m
  bool fail_on_fire = false;
  std::vector<std::string> expect_fire;
  std::vector<std::string> expect_quiet;
  std::string timeline_json;  // empty: none
  PrometheusTools tools;
};

// Parses the arguments after "alerts": its own flags, the rest as `llmsim replay`'s. Throws
// UsageError naming the flag.
AlertsOptions parse_alerts_args(const std::vector<std::string>& args);
std::string alerts_usage();

// The time of the last sample in an OpenMetrics file (Unix ns). Throws std::runtime_error when it
// has none.
int64_t last_openmetrics_sample_ns(const std::string& path);

// `llmsim alerts ARGS` (args exclude "alerts").
int run_alerts_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace llm
