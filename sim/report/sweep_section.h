// The sweep section of the HTML report (for `llmsim sweep --report`): for each swept flag, one
// plot of the objective figure against the flag's values, every grid point as a marker and the
// best point at each value joined by a line. Numeric flag values make a numeric x axis; others
// (kv-cache-dtype, routing-policy) a categorical one, in the order they first appear.
// Thread-safety: pure function.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/report/html_report.h"

namespace llm {

struct SweepReportPoint {
  std::map<std::string, std::string> flags;  // swept flag (without --) -> value of this point
  std::map<std::string, double> figures;     // keyed as summary.json / summary_figure()
  std::string error;                         // non-empty: the point failed (not plotted)
};

// `objective` names a figure (e.g. ttft_p99); points without it are left out and counted in the
// section's note.
ReportSection sweep_section(const std::vector<SweepReportPoint>& points,
                            const std::string& objective);

}  // namespace llm
