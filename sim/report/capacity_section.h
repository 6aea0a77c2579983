// The capacity section of the HTML report (for `llmsim capacity --report`): one plot per SLO,
// the figure replayed at each number of engines tried, with the SLO target drawn as a dashed
// line.
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/report/html_report.h"

namespace llm {

struct CapacityReportPoint {
  int32_t engines = 1;                    // data-parallel engines of this replay
  std::map<std::string, double> figures;  // keyed as summary.json / summary_figure()
};

// slo_targets: figure key -> target (e.g. ttft_p99 -> 2.0 seconds); one plot per key, in key
// order. Points may come in any order (they are plotted by engines).
ReportSection capacity_section(const std::vector<CapacityReportPoint>& points,
                               const std::map<std::string, double>& slo_targets);

}  // namespace llm
