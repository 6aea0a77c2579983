#include "sim/report/sweep_section.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "sim/replay/summary_figures.h"
#include "sim/report/figure_label.h"
#include "sim/report/svg_plot.h"

namespace llm {
namespace {

bool is_number(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size();
}

// A plot id from a flag name: letters and digits kept, anything else a dash.
std::string id_of(const std::string& flag) {
  std::string id = "sweep-";
  for (char c : flag) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    id += keep ? c : (c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : '-');
  }
  return id;
}

Plot flag_plot(const std::vector<SweepReportPoint>& points, const std::string& flag,
               const std::string& objective) {
  // The values of the flag in order of first appearance, and whether all are numbers.
  std::vector<std::string> values;
  bool numeric = true;
  for (const SweepReportPoint& p : points) {
    const auto it = p.flags.find(flag);
    if (it == p.flags.end()) continue;
    if (std::find(values.begin(), values.end(), it->second) == values.end()) {
      values.push_back(it->second);
      double unused;
      numeric = numeric && is_number(it->second, unused);
    }
  }
  Plot plot;
  plot.id = id_of(flag);
  plot.title = objective + " against --" + flag;
  plot.x_label = "--" + flag;
  plot.y_label = figure_axis_label(objective);
  if (!numeric) plot.x_categories = values;

  const bool lower = lower_is_better(objective);
  PlotSeries every{"every grid point", {}, {}, false, true};
  std::map<double, double> best;  // x -> best objective there
  for (const SweepReportPoint& p : points) {
    const auto flag_it = p.flags.find(flag);
    const auto fig_it = p.figures.find(objective);
    if (!p.error.empty() || flag_it == p.flags.end() || fig_it == p.figures.end()) continue;
    double x = 0;
    if (numeric) {
      is_number(flag_it->second, x);
    } else {
      x = static_cast<double>(std::find(values.begin(), values.end(), flag_it->second) -
                              values.begin());
    }
    every.x.push_back(x);
    every.y.push_back(fig_it->second);
    const auto [b, inserted] = best.emplace(x, fig_it->second);
    if (!inserted)
      b->second = lower ? std::min(b->second, fig_it->second) : std::max(b->second, fig_it->second);
  }
  PlotSeries line{
      lower ? "best (lowest) at each value" : "best (highest) at each value", {}, {}, true, true};
  for (const auto& [x, y] : best) {
    line.x.push_back(x);
    line.y.push_back(y);
  }
  plot.series.push_back(std::move(every));
  plot.series.push_back(std::move(line));
  return plot;
}

}  // namespace

ReportSection sweep_section(const std::vector<SweepReportPoint>& points,
                            const std::string& objective) {
  std::vector<std::string> flags;
  for (const SweepReportPoint& p : points) {
    for (const auto& [flag, value] : p.flags) {
      if (std::find(flags.begin(), flags.end(), flag) == flags.end()) flags.push_back(flag);
    }
  }
  size_t plotted = 0;
  for (const SweepReportPoint& p : points) {
    if (p.error.empty() && p.figures.count(objective)) ++plotted;
  }
  ReportSection section{"sweep", "Sweep: " + objective + " against each swept flag", "", {}};
  section.note = std::to_string(points.size()) + " grid points, " + std::to_string(plotted) +
                 " with a " + objective + " figure";
  if (plotted < points.size()) {
    section.note += " (" + std::to_string(points.size() - plotted) + " failed or without it)";
  }
  section.note += ". Each marker is one grid point; the line joins the best point at each value.";
  for (const std::string& flag : flags) {
    section.figures.push_back(render_svg_plot(flag_plot(points, flag, objective)));
  }
  return section;
}

}  // namespace llm
