#include "sim/report/alert_section.h"

#include <algorithm>

#include "sim/report/svg_plot.h"
#include "sim/report/svg_text.h"

namespace llm {
namespace {

constexpr double kTimelineLeft = 260;
constexpr double kTimelineRight = 900;
constexpr double kTimelineTop = 52;
constexpr double kRow = 22;
constexpr const char* kPendingColor = "#f2b134";
constexpr const char* kFiringColor = "#d62728";

std::string row_label(const AlertWindow& w) {
  std::string label = w.alert;
  if (!w.labels.empty()) {
    label += '{';
    bool first = true;
    for (const auto& [k, v] : w.labels) {
      if (!first) label += ',';
      first = false;
      label += k + "=\"" + v + "\"";
    }
    label += '}';
  }
  return label;
}

}  // namespace

std::string render_alert_timeline(const std::vector<AlertWindow>& windows, double trace_end_s) {
  double end = std::max(trace_end_s, 0.0);
  for (const AlertWindow& w : windows) {
    for (const auto& t : {w.pending_s, w.fired_s, w.resolved_s}) {
      if (t) end = std::max(end, *t);
    }
  }
  if (end <= 0) end = 1;
  const double height =
      kTimelineTop + kRow * static_cast<double>(std::max<size_t>(windows.size(), 1)) + 44;
  const std::string h = coordinate_text(height);
  auto px = [&](double t) { return kTimelineLeft + t / end * (kTimelineRight - kTimelineLeft); };
  const double axis_y = height - 40;

  size_t bars = 0;
  std::string rows;
  for (size_t i = 0; i < windows.size(); ++i) {
    const AlertWindow& w = windows[i];
    const double y = kTimelineTop + kRow * static_cast<double>(i);
    std::string row_bars;
    size_t row_count = 0;
    auto bar = [&](double from, double to, const char* color, const char* kind) {
      row_bars += "<rect class=\"" + std::string(kind) + "\" x=\"" + coordinate_text(px(from)) +
                  "\" y=\"" + coordinate_text(y + 3) + "\" width=\"" +
                  coordinate_text(std::max(px(to) - px(from), 1.5)) + "\" height=\"" +
                  coordinate_text(kRow - 6) + "\" fill=\"" + color + "\"><title>" +
                  xml_escape(std::string(kind) + " " + short_number_text(from) + " s to " +
                             short_number_text(to) + " s") +
                  "</title></rect>";
      ++row_count;
    };
    if (w.pending_s) {
      const double until = w.fired_s ? *w.fired_s : (w.resolved_s ? *w.resolved_s : end);
      bar(*w.pending_s, until, kPendingColor, "pending");
    }
    if (w.fired_s) bar(*w.fired_s, w.resolved_s ? *w.resolved_s : end, kFiringColor, "firing");
    bars += row_count;
    rows += "<text x=\"" + coordinate_text(kTimelineLeft - 8) + "\" y=\"" +
            coordinate_text(y + 15) + "\" font-size=\"11\" text-anchor=\"end\">" +
            xml_escape(row_label(w)) + "</text>";
    rows += "<g class=\"series\" data-series=\"" + xml_escape(row_label(w)) + "\" data-points=\"" +
            std::to_string(row_count) + "\">" + row_bars + "</g>";
  }

  std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" data-plot=\"alerts\" "
      "data-points=\"" +
      std::to_string(bars) + "\" width=\"1000\" height=\"" + h + "\" viewBox=\"0 0 1000 " + h +
      "\" role=\"img\">";
  svg += "<title>Alert firing windows</title>";
  svg +=
      "<text class=\"plot-title\" x=\"20\" y=\"20\" font-size=\"14\" font-weight=\"bold\">"
      "Alert firing windows</text>";
  // Legend.
  svg += "<g class=\"legend\"><rect x=\"" + coordinate_text(kTimelineLeft) +
         "\" y=\"28\" width=\"14\" height=\"10\" fill=\"" + kPendingColor + "\"/><text x=\"" +
         coordinate_text(kTimelineLeft + 20) +
         "\" y=\"37\" font-size=\"11\">pending</text><rect x=\"" +
         coordinate_text(kTimelineLeft + 90) + "\" y=\"28\" width=\"14\" height=\"10\" fill=\"" +
         kFiringColor + "\"/><text x=\"" + coordinate_text(kTimelineLeft + 110) +
         "\" y=\"37\" font-size=\"11\">firing</text></g>";
  svg += rows;
  if (windows.empty()) {
    svg += "<text x=\"" + coordinate_text((kTimelineLeft + kTimelineRight) / 2) + "\" y=\"" +
           coordinate_text(kTimelineTop + 15) +
           "\" font-size=\"13\" text-anchor=\"middle\" fill=\"#888\">no alert went pending</text>";
  }
  // Time axis.
  svg += "<path d=\"M" + coordinate_text(kTimelineLeft) + " " + coordinate_text(axis_y) + "H" +
         coordinate_text(kTimelineRight) + "\" stroke=\"#333\"/>";
  for (double t : nice_ticks(0, end, 8)) {
    if (t > end + 1e-9) continue;
    const std::string x = coordinate_text(px(t));
    svg += "<line x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + coordinate_text(kTimelineTop) +
           "\" y2=\"" + coordinate_text(axis_y + 5) + "\" stroke=\"#e5e5e5\"/>";
    svg += "<text x=\"" + x + "\" y=\"" + coordinate_text(axis_y + 18) +
           "\" font-size=\"11\" text-anchor=\"middle\">" + short_number_text(t) + "</text>";
  }
  svg += "<text class=\"x-label\" x=\"" + coordinate_text((kTimelineLeft + kTimelineRight) / 2) +
         "\" y=\"" + coordinate_text(axis_y + 34) + "\" font-size=\"12\" text-anchor=\"middle\">" +
         "trace time (s)</text>";
  svg += "</svg>";
  return svg;
}

ReportSection alert_section(const std::vector<AlertWindow>& windows, double trace_end_s) {
  size_t fired = 0;
  for (const AlertWindow& w : windows) fired += w.fired_s.has_value();
  ReportSection section{"alerts", "Alert firing windows", "", {}};
  section.note = std::to_string(windows.size()) + " alert instances went pending, " +
                 std::to_string(fired) +
                 " fired. Amber: pending (the expression true, its `for` not yet over); red: "
                 "firing, until resolved or the end of the trace.";
  section.figures.push_back(render_alert_timeline(windows, trace_end_s));
  return section;
}

}  // namespace llm
