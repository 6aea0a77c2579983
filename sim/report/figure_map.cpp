#include "sim/report/figure_map.h"

#include "sim/replay/summary_figures.h"

namespace llm {

std::map<std::string, double> summary_figure_map(const ReplaySummary& summary) {
  std::map<std::string, double> figures;
  for (const std::string& key : summary_figure_keys()) {
    if (const auto v = summary_figure(summary, key)) figures[key] = *v;
  }
  return figures;
}

}  // namespace llm
