#include "sim/report/capacity_section.h"

#include <algorithm>

#include "sim/report/figure_label.h"
#include "sim/report/svg_plot.h"
#include "sim/report/svg_text.h"

namespace llm {

ReportSection capacity_section(const std::vector<CapacityReportPoint>& points,
                               const std::map<std::string, double>& slo_targets) {
  std::vector<CapacityReportPoint> sorted(points);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.engines < b.engines; });
  ReportSection section{"capacity", "Capacity: SLO figures against the number of engines", "", {}};
  section.note = std::to_string(points.size()) +
                 " replays; each plot is one SLO figure at each number of engines tried, the "
                 "dashed line its target.";
  for (const auto& [key, target] : slo_targets) {
    Plot plot;
    plot.id = "capacity-" + std::to_string(section.figures.size());
    plot.title = key + " against engines";
    plot.x_label = "engines (data parallel)";
    plot.y_label = figure_axis_label(key);
    PlotSeries s{key, {}, {}, true, true};
    for (const CapacityReportPoint& p : sorted) {
      const auto it = p.figures.find(key);
      if (it == p.figures.end()) continue;
      s.x.push_back(p.engines);
      s.y.push_back(it->second);
    }
    plot.series.push_back(std::move(s));
    plot.references.push_back({"SLO target " + short_number_text(target), target});
    section.figures.push_back(render_svg_plot(plot));
  }
  return section;
}

}  // namespace llm
