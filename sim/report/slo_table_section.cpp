#include "sim/report/slo_table_section.h"

#include "sim/replay/summary_figures.h"
#include "sim/report/svg_text.h"

namespace llm {
namespace {

std::string cell(const std::string& text, const char* cls = nullptr) {
  return std::string(cls ? "<td class=\"" + std::string(cls) + "\">" : "<td>") + xml_escape(text) +
         "</td>";
}

// "ttft_p99 <= 2 s": a figure target as a column heading.
std::string target_heading(const SloTarget& t) {
  return t.key + (lower_is_better(t.key) ? " <= " : " >= ") + format_figure(t.key, t.target);
}

}  // namespace

ReportSection slo_table_section(const std::vector<SloTarget>& targets,
                                const std::vector<SloTableRow>& rows) {
  ReportSection s;
  s.id = "sweep-slo";
  s.heading = "SLO per point";
  int64_t met_all = 0;
  std::vector<const SloTarget*> figures;
  for (const SloTarget& t : targets) {
    if (!t.per_request) figures.push_back(&t);
  }
  std::string h = "<table class=\"slo\"><tr><th>rank</th><th>point</th>";
  if (!rows.empty()) {
    for (const auto& [flag, value] : rows.front().flags) h += "<th>--" + xml_escape(flag) + "</th>";
  }
  for (const SloTarget* t : figures) h += "<th>" + xml_escape(target_heading(*t)) + "</th>";
  h += "<th>every target</th></tr>";
  for (size_t i = 0; i < rows.size(); ++i) {
    const SloTableRow& row = rows[i];
    h += "<tr>" + cell(std::to_string(i + 1)) + cell(row.point);
    for (const auto& [flag, value] : row.flags) h += cell(value);
    if (!row.error.empty()) {
      h += "<td class=\"missed\" colspan=\"" + std::to_string(figures.size() + 1) + "\">" +
           xml_escape("failed: " + row.error) + "</td></tr>";
      continue;
    }
    bool all = true;
    for (const SloResult& r : row.results) {
      all = all && r.met;
      h += cell(format_figure(r.key, r.value) + (r.met ? " met" : " missed"),
                r.met ? "met" : "missed");
    }
    met_all += all;
    h += cell(all ? "met" : "MISSED", all ? "met" : "missed") + "</tr>";
  }
  h += "</table>";
  s.figures.push_back(h);
  s.note = "SLO: " + describe_slo(targets) + ". " + std::to_string(met_all) + " of " +
           std::to_string(rows.size()) +
           " points meet every target; points in rank order (those meeting every target first). "
           "A latency of inf: refused or failed requests count as infinitely slow, as in "
           "llmsim replay --slo.";
  return s;
}

}  // namespace llm
