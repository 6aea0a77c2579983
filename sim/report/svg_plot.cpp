#include "sim/report/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/report/svg_text.h"

namespace llm {
namespace {

// Layout, in SVG pixels (760 x 300): the plot area and a legend column on its right.
constexpr double kLeft = 72;
constexpr double kRight = 580;
constexpr double kTop = 34;
constexpr double kBottom = 250;
constexpr double kLegendX = 596;
constexpr size_t kLegendChars = 26;

const char* const kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                               "#9467bd", "#8c564b", "#e377c2", "#17becf"};
constexpr size_t kNumColors = sizeof kColors / sizeof kColors[0];

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

bool finite_point(const PlotSeries& s, size_t i) {
  return std::isfinite(s.x[i]) && std::isfinite(s.y[i]);
}

// Every finite y of the plot, references included.
Range y_range(const Plot& plot) {
  Range yr;
  for (const PlotSeries& s : plot.series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    for (size_t i = 0; i < n; ++i) {
      if (finite_point(s, i)) yr.add(s.y[i]);
    }
  }
  for (const ReferenceLine& r : plot.references) yr.add(r.y);
  return yr;
}

std::string shortened(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit - 3) + "...";
}

}  // namespace

bool log_y_axis(const Plot& plot) {
  const Range yr = y_range(plot);
  return !yr.empty() && yr.lo > 0 && yr.hi / yr.lo >= kLogSpan;
}

std::vector<std::string> wrap_text(const std::string& text, size_t width) {
  if (const size_t cut = text.find('\n'); cut != std::string::npos) {
    std::vector<std::string> lines = wrap_text(text.substr(0, cut), width);
    for (std::string& line : wrap_text(text.substr(cut + 1), width))
      lines.push_back(std::move(line));
    return lines;
  }
  std::vector<std::string> lines;
  std::string line;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(at, end - at);
    at = end + 1;
    while (word.size() > width) {  // a word longer than a line is cut
      if (!line.empty()) lines.push_back(std::move(line));
      line.clear();
      lines.push_back(word.substr(0, width));
      word.erase(0, width);
    }
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(std::move(line));
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty() || lines.empty()) lines.push_back(line);
  return lines;
}

std::vector<double> nice_ticks(double lo, double hi, int count) {
  std::vector<double> ticks;
  if (!(hi > lo) || count < 1) return {lo};
  const double raw = (hi - lo) / count;
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * magnitude;
    if (step >= raw) break;
  }
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step) {
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

namespace {

// The plot's scales: the data's ranges (padded for markers, rounded to ticks) and the y ticks,
// with the mapping from data to SVG pixels.
struct PlotFrame {
  bool categorical = false;
  bool log_y = false;
  Range xr;
  Range yr;
  std::vector<double> yticks;
  size_t num_points = 0;  // finite points over all series

  double px(double x) const { return kLeft + (x - xr.lo) / (xr.hi - xr.lo) * (kRight - kLeft); }
  double py(double y) const {
    if (log_y) {
      return kBottom - (std::log10(y) - std::log10(yr.lo)) /
                           (std::log10(yr.hi) - std::log10(yr.lo)) * (kBottom - kTop);
    }
    return kBottom - (y - yr.lo) / (yr.hi - yr.lo) * (kBottom - kTop);
  }
};

PlotFrame plot_frame(const Plot& plot) {
  PlotFrame f;
  f.categorical = !plot.x_categories.empty();
  f.log_y = log_y_axis(plot);
  f.yr = y_range(plot);
  bool markers = false;
  for (const PlotSeries& s : plot.series) {
    const size_t n = std::min(s.x.size(), s.y.size());
    markers = markers || s.markers;
    for (size_t i = 0; i < n; ++i) {
      if (!finite_point(s, i)) continue;
      f.xr.add(s.x[i]);
      ++f.num_points;
    }
  }
  Range& xr = f.xr;
  Range& yr = f.yr;
  if (f.categorical) {
    xr.lo = -0.5;
    xr.hi = static_cast<double>(plot.x_categories.size()) - 0.5;
  }
  if (xr.empty()) xr = {0, 1};
  if (yr.empty()) yr = {0, 1};
  if (xr.hi == xr.lo) {
    xr.lo -= 0.5;
    xr.hi += 0.5;
  }
  // Markers at the ends of a numeric x axis would be cut in half by the plot's edge: pad it.
  if (markers && !f.categorical) {
    const double pad = (xr.hi - xr.lo) * 0.03;
    xr.lo -= pad;
    xr.hi += pad;
  }
  if (f.log_y) {  // powers of ten around the values
    yr.lo = std::pow(10, std::floor(std::log10(yr.lo)));
    yr.hi = std::pow(10, std::ceil(std::log10(yr.hi)));
    for (double t = yr.lo; t <= yr.hi * (1 + 1e-9); t *= 10) f.yticks.push_back(t);
  } else {
    // Counts, latencies and usages start at zero; the top leaves a little air.
    if (yr.lo > 0) yr.lo = 0;
    if (yr.hi == yr.lo) yr.hi = yr.lo + 1;
    f.yticks = nice_ticks(yr.lo, yr.hi, 5);
    yr.hi = std::max(yr.hi, f.yticks.back());
    yr.lo = std::min(yr.lo, f.yticks.front());
  }
  // Markers at the ends of the y axis: a little air beyond them.
  if (markers && !f.log_y) {
    const double pad = (yr.hi - yr.lo) * 0.03;
    yr.hi += pad;
    yr.lo -= pad;
  } else if (markers) {
    yr.hi *= 1.15;
    yr.lo /= 1.15;
  }
  return f;
}

// The grid, the ticks and their labels, the axes and the axis labels.
std::string render_axes(const Plot& plot, const PlotFrame& f) {
  std::string svg;
  for (double t : f.yticks) {
    const std::string y = coordinate_text(f.py(t));
    svg += "<line x1=\"" + coordinate_text(kLeft) + "\" x2=\"" + coordinate_text(kRight) +
           "\" y1=\"" + y + "\" y2=\"" + y + "\" stroke=\"#e5e5e5\"/>";
    svg += "<text x=\"" + coordinate_text(kLeft - 6) + "\" y=\"" + coordinate_text(f.py(t) + 4) +
           "\" font-size=\"11\" text-anchor=\"end\">" + short_number_text(t) + "</text>";
  }
  // X ticks: the categories, or nice values.
  std::vector<std::pair<double, std::string>> xticks;
  if (f.categorical) {
    for (size_t i = 0; i < plot.x_categories.size(); ++i) {
      xticks.emplace_back(static_cast<double>(i), shortened(plot.x_categories[i], 14));
    }
  } else {
    for (double t : nice_ticks(f.xr.lo, f.xr.hi, 6)) {
      if (t >= f.xr.lo - 1e-9 && t <= f.xr.hi + 1e-9) xticks.emplace_back(t, short_number_text(t));
    }
  }
  for (const auto& [t, label] : xticks) {
    const std::string x = coordinate_text(f.px(t));
    svg += "<line x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + coordinate_text(kBottom) + "\" y2=\"" +
           coordinate_text(kBottom + 5) + "\" stroke=\"#333\"/>";
    svg += "<text x=\"" + x + "\" y=\"" + coordinate_text(kBottom + 18) +
           "\" font-size=\"11\" text-anchor=\"middle\">" + xml_escape(label) + "</text>";
  }
  svg += "<path d=\"M" + coordinate_text(kLeft) + " " + coordinate_text(kTop) + "V" +
         coordinate_text(kBottom) + "H" + coordinate_text(kRight) +
         "\" fill=\"none\" stroke=\"#333\"/>";
  svg += "<text class=\"x-label\" x=\"" + coordinate_text((kLeft + kRight) / 2) + "\" y=\"" +
         coordinate_text(kBottom + 40) + "\" font-size=\"12\" text-anchor=\"middle\">" +
         xml_escape(plot.x_label) + "</text>";
  svg += "<text class=\"y-label\" x=\"14\" y=\"" + coordinate_text((kTop + kBottom) / 2) +
         "\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 14 " +
         coordinate_text((kTop + kBottom) / 2) + ")\">" +
         xml_escape(plot.y_label + (f.log_y ? " (log scale)" : "")) + "</text>";
  return svg;
}

// One series: its <g> with a polyline and/or a circle per finite point.
std::string render_series(const PlotSeries& s, const std::string& color, const PlotFrame& f) {
  const size_t n = std::min(s.x.size(), s.y.size());
  std::string points;
  size_t count = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!finite_point(s, i)) continue;
    if (count++) points += ' ';
    points += coordinate_text(f.px(s.x[i])) + "," + coordinate_text(f.py(s.y[i]));
  }
  std::string svg = "<g class=\"series\" data-series=\"" + xml_escape(s.name) +
                    "\" data-points=\"" + std::to_string(count) + "\">";
  if (s.line && count > 0) {
    svg += "<polyline fill=\"none\" stroke=\"" + color +
           "\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"" + points + "\"/>";
  }
  if (s.markers) {
    for (size_t i = 0; i < n; ++i) {
      if (!finite_point(s, i)) continue;
      svg += "<circle r=\"3.5\" fill=\"" + color + "\" cx=\"" + coordinate_text(f.px(s.x[i])) +
             "\" cy=\"" + coordinate_text(f.py(s.y[i])) + "\"/>";
    }
  }
  return svg + "</g>";
}

// The legend column: one entry per series and reference line, its name wrapped onto as many
// lines as it needs. An entry's key is drawn as its chart draws it: a line (dashed for a
// reference), a dot for a series of markers alone.
class Legend {
 public:
  enum class Key { kLine, kDashed, kDot };

  void add(const std::string& name, const std::string& color, Key key) {
    const std::string y = coordinate_text(y_);
    if (key == Key::kDot) {
      svg_ += "<circle r=\"3.5\" fill=\"" + color + "\" cx=\"" + coordinate_text(kLegendX + 9) +
              "\" cy=\"" + y + "\"/>";
    } else {
      svg_ += "<line x1=\"" + coordinate_text(kLegendX) + "\" x2=\"" +
              coordinate_text(kLegendX + 18) + "\" y1=\"" + y + "\" y2=\"" + y + "\" stroke=\"" +
              color + "\" stroke-width=\"2\"" +
              (key == Key::kDashed ? " stroke-dasharray=\"5 3\"" : "") + "/>";
    }
    for (const std::string& line : wrap_text(name, kLegendChars)) {
      svg_ += "<text x=\"" + coordinate_text(kLegendX + 24) + "\" y=\"" + coordinate_text(y_ + 4) +
              "\" font-size=\"11\">" + xml_escape(line) + "</text>";
      y_ += 13;
    }
    y_ += 3;
  }
  std::string svg() const { return "<g class=\"legend\">" + svg_ + "</g>"; }

 private:
  std::string svg_;
  double y_ = kTop + 8;
};

}  // namespace

std::string render_svg_plot(const Plot& plot) {
  const PlotFrame f = plot_frame(plot);
  std::string svg;
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" data-plot=\"" +
         xml_escape(plot.id) + "\" data-points=\"" + std::to_string(f.num_points) +
         "\" data-y-scale=\"" + (f.log_y ? "log" : "linear") +
         "\" width=\"760\" height=\"300\" viewBox=\"0 0 760 300\" role=\"img\">";
  svg += "<title>" + xml_escape(plot.title) + "</title>";
  svg += "<text class=\"plot-title\" x=\"" + coordinate_text(kLeft) +
         "\" y=\"20\" font-size=\"14\" font-weight=\"bold\">" + xml_escape(plot.title) + "</text>";
  svg += render_axes(plot, f);
  // Series, then reference lines over them.
  Legend legend;
  for (size_t si = 0; si < plot.series.size(); ++si) {
    const PlotSeries& s = plot.series[si];
    const std::string color = kColors[si % kNumColors];
    svg += render_series(s, color, f);
    legend.add(s.name, color, s.markers && !s.line ? Legend::Key::kDot : Legend::Key::kLine);
  }
  for (const ReferenceLine& r : plot.references) {
    const std::string y = coordinate_text(f.py(r.y));
    svg += "<line class=\"reference\" x1=\"" + coordinate_text(kLeft) + "\" x2=\"" +
           coordinate_text(kRight) + "\" y1=\"" + y + "\" y2=\"" + y +
           "\" stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>";
    legend.add(r.label, "#000", Legend::Key::kDashed);
  }
  if (f.num_points == 0) {
    svg += "<text x=\"" + coordinate_text((kLeft + kRight) / 2) + "\" y=\"" +
           coordinate_text((kTop + kBottom) / 2) +
           "\" font-size=\"14\" text-anchor=\"middle\" fill=\"#888\">no data</text>";
  }
  return svg + legend.svg() + "</svg>";
}

}  // namespace llm
