// Every figure of a replay summary by name (summary_figure_keys()), as the sweep and capacity
// sections take them: SweepReportPoint::figures and CapacityReportPoint::figures.
// Thread-safety: pure function.
#pragma once

#include <map>
#include <string>

#include "sim/replay/replay_report.h"

namespace llm {

std::map<std::string, double> summary_figure_map(const ReplaySummary& summary);

}  // namespace llm
