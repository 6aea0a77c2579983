// A private Prometheus server over one replay's simulated series, for `llmsim alerts`: the
// OpenMetrics file is backfilled into a TSDB in a work folder with `promtool tsdb
// create-blocks-from openmetrics`, then `prometheus` serves that TSDB on 127.0.0.1 at a free port
// (no scrape targets, 100-year retention so that the blocks' old timestamps are kept) until it is
// stopped by its PID: by stop(), by the destructor, or by SIGINT/SIGTERM/SIGHUP while it runs
// (the handler then also removes the work folder, and dies of the signal).
// Range queries go to its HTTP API (/api/v1/query_range), series lookups to /api/v1/series.
// Thread-safety: one thread; at most one instance at a time (the signal handler knows one PID).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/alerts/alert_evaluation.h"

namespace llm {

struct PrometheusTools {
  std::string promtool = "promtool";
  std::string prometheus = "prometheus";
};

// Runs `promtool check rules FILE`. Returns "" when valid, else promtool's output.
// Throws std::runtime_error when promtool cannot be run.
std::string promtool_check_rules(const PrometheusTools& tools, const std::string& rules_path,
                                 const std::string& work_dir);

class LocalPrometheus {
 public:
  // Backfills and starts; waits until /-/ready answers. Throws std::runtime_error with the
  // tool's last output lines when a step fails (the server, if started, is stopped).
  LocalPrometheus(const PrometheusTools& tools, const std::string& openmetrics_path,
                  const std::string& work_dir);
  ~LocalPrometheus();
  LocalPrometheus(const LocalPrometheus&) = delete;
  LocalPrometheus& operator=(const LocalPrometheus&) = delete;

  uint16_t port() const { return port_; }
  // Throws std::runtime_error with Prometheus's error for a bad query.
  std::vector<RangeSeries> query_range(const std::string& expr, int64_t start_ns, int64_t end_ns,
                                       int64_t step_ns) const;
  // Whether any series in [start_ns, end_ns] matches the selector (/api/v1/series). Throws
  // std::runtime_error with Prometheus's error for a bad selector.
  bool has_series(const std::string& selector, int64_t start_ns, int64_t end_ns) const;
  // SIGTERM, then SIGKILL after 10 s; waits for the process. Idempotent.
  void stop();

 private:
  std::string work_dir_;
  pid_t pid_ = -1;
  uint16_t port_ = 0;
};

}  // namespace llm
