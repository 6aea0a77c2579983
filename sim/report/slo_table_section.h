// The per-point SLO table of the sweep report (`llmsim sweep --slo ... --report`): one row per
// grid point in rank order with its swept values, each SLO figure's value and whether it met its
// target, and whether the point met them all; the section's note gives the targets as a line.
// The table is HTML (a <table class="slo">), placed where a section's plots go.
// Thread-safety: pure function.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/replay/slo.h"
#include "sim/report/html_report.h"

namespace llm {

struct SloTableRow {
  std::string point;                                       // the point's folder name
  std::vector<std::pair<std::string, std::string>> flags;  // swept flag (without --), value
  std::vector<SloResult> results;                          // check_slo's, one per figure target
  std::string error;                                       // non-empty: the point failed
};

// `targets` as given to --slo; `rows` in rank order.
ReportSection slo_table_section(const std::vector<SloTarget>& targets,
                                const std::vector<SloTableRow>& rows);

}  // namespace llm
