// One chart of the HTML report, drawn as inline SVG by this code (no plotting library, no
// network): axes with ticks, axis labels with units, a legend, each series as a polyline and/or
// circle markers, horizontal reference lines (an SLO target) and an optional categorical x axis
// (flag values such as fp8, auto). A y axis whose values are all positive and span two decades or
// more is logarithmic (kLogSpan; data-y-scale="log"), so that a 2 s target stays visible under a
// 1,000 s point. Legend entries wrap onto further lines rather than being cut; markers are kept
// inside the plot area. Each series is a <g class="series" data-series=NAME
// data-points=N> so that tests and browsers can check that every plot carries data.
// Thread-safety: pure functions over plain structs.
#pragma once

#include <string>
#include <vector>

namespace llm {

struct PlotSeries {
  std::string name;       // the legend entry
  std::vector<double> x;  // with x_categories: indices into them
  std::vector<double> y;  // same length as x; non-finite points are left out
  bool line = true;       // join the points
  bool markers = false;   // a circle at each point
};

struct ReferenceLine {
  std::string label;  // e.g. "SLO target 2 s"
  double y = 0;
};

struct Plot {
  std::string id;  // unique within a report, [a-z0-9_-]
  std::string title;
  std::string x_label;  // with its unit, e.g. "trace time (s)"
  std::string y_label;
  std::vector<std::string> x_categories;  // non-empty: a categorical x axis
  std::vector<PlotSeries> series;
  std::vector<ReferenceLine> references;
};

// The <svg> element of the plot (XML-well-formed; "no data" drawn when no series has a point).
std::string render_svg_plot(const Plot& plot);

// The ratio of the largest to the smallest positive y from which the axis is logarithmic.
inline constexpr double kLogSpan = 100;

// Whether render_svg_plot draws `plot`'s y axis logarithmically.
bool log_y_axis(const Plot& plot);

// `text` cut into lines of at most `width` characters at spaces (a longer word is cut); a '\n'
// always starts a new line.
std::vector<std::string> wrap_text(const std::string& text, size_t width);

// Evenly spaced "nice" tick values (steps of 1, 2 or 5 x 10^k) covering [lo, hi], about `count`.
std::vector<double> nice_ticks(double lo, double hi, int count);

}  // namespace llm
