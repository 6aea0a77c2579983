// `llmsim alerts TRACE --rules FILE.yml [replay flags]`: replays the trace, evaluates every
// alerting rule of the file over the simulated series with a real Prometheus (alerts_prometheus.h,
// sim/alerts/alert_evaluation.h) and prints when each alert and label set went pending, fired and
// resolved. Every selector of every rule is checked against the replay's series and the replay's
// length against each rule's needs (sim/alerts/rule_coverage.h): problems are warnings, errors with
// --strict. Exit code 0; 1 when --fail-on-fire sees an alert fire, an --expect-fire /
// --expect-quiet assertion is not met (an expected-quiet rule with a selector that matches no
// series fails), --strict finds a rule that cannot be judged, or Prometheus cannot be run; 2 for
// bad usage or rules.
// Thread-safety: single-threaded command-line code.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "sim/alerts/alerts_result.h"
#include "sim/cli/alerts_prometheus.h"
#include "sim/cli/replay_command.h"

namespace llm {

struct AlertsOptions {
  ReplayOptions replay;
  std::string rules_path;
  int64_t evaluation_interval_ns = 60'000'000'000;  // Prometheus's global default, 1m
  AlertExpectations expect;   // --expect-fire, --expect-quiet, --fail-on-fire, --strict
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
