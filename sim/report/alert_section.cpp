#include "sim/report/alert_section.h"

#include <algorithm>
#include <string>

#include "sim/report/svg_plot.h"
#include "sim/report/svg_text.h"

namespace llm {
namespace {

constexpr double kTimelineLeft = 20;
constexpr double kTimelineRight = 980;
constexpr double kTimelineTop = 52;
constexpr double kLabelLine = 14;  // a line of a row's label, above its bar
constexpr double kBar = 16;
constexpr double kRowGap = 8;
// Labels are wrapped to lines of at most this many characters: about 900 px of 11 px text, so
// that every label shows whole at the chart's width.
constexpr size_t kLabelChars = 140;
constexpr const char* kPendingColor = "#f2b134";
constexpr const char* kFiringColor = "#d62728";
constexpr const char* kFaultColor = "#7f7f7f";

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

// One chart row: its label (whole, over as many lines as it needs) and its bars.
struct Row {
  std::string label;
  std::vector<std::string> lines;
  struct Bar {
    double from = 0;
    double to = 0;
    const char* color = "";
    const char* kind = "";
  };
  std::vector<Bar> bars;
};

double row_height(const Row& row) {
  return kLabelLine * static_cast<double>(row.lines.size()) + kBar + kRowGap;
}

}  // namespace

std::vector<std::string> wrap_label(const std::string& label, size_t max_chars) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (label.size() - start > max_chars) {
    // Break after the last ',' (between labels) or ' ' that fits, else at max_chars.
    size_t cut = label.find_last_of(", ", start + max_chars - 1);
    cut = cut == std::string::npos || cut < start ? start + max_chars : cut + 1;
    lines.push_back(label.substr(start, cut - start));
    start = cut;
  }
  lines.push_back(label.substr(start));
  return lines;
}

namespace {

// The chart's time span: the trace's end or the last alert time, whichever is later (1 when both
// are 0).
double timeline_end(const std::vector<AlertWindow>& windows, double trace_end_s) {
  double end = std::max(trace_end_s, 0.0);
  for (const AlertWindow& w : windows) {
    for (const auto& t : {w.pending_s, w.fired_s, w.resolved_s}) {
      if (t) end = std::max(end, *t);
    }
  }
  return end <= 0 ? 1 : end;
}

// One row per fault, then one per alert instance, each with its label wrapped into lines.
std::vector<Row> timeline_rows(const std::vector<AlertWindow>& windows,
                               const std::vector<FaultBar>& faults, double end) {
  std::vector<Row> rows;
  for (const FaultBar& f : faults) {
    Row row;
    row.label = "fault " + f.label;
    row.bars.push_back({std::min(f.from_s, end), std::min(f.to_s, end), kFaultColor, "fault"});
    rows.push_back(std::move(row));
  }
  for (const AlertWindow& w : windows) {
    Row row;
    row.label = row_label(w);
    if (w.pending_s) {
      const double until = w.fired_s ? *w.fired_s : (w.resolved_s ? *w.resolved_s : end);
      row.bars.push_back({*w.pending_s, until, kPendingColor, "pending"});
    }
    if (w.fired_s) {
      row.bars.push_back({*w.fired_s, w.resolved_s ? *w.resolved_s : end, kFiringColor, "firing"});
    }
    rows.push_back(std::move(row));
  }
  for (Row& row : rows) row.lines = wrap_label(row.label, kLabelChars);
  return rows;
}

// Maps trace time to the chart's x.
struct AlertTimeScale {
  double end = 1;
  double x(double t) const { return kTimelineLeft + t / end * (kTimelineRight - kTimelineLeft); }
};

// The rows' labels and bars from the top of the chart; `alert_bars` counts the bars that are not
// faults.
std::string render_alert_rows(const std::vector<Row>& rows, const AlertTimeScale& scale,
                              size_t& alert_bars) {
  std::string body;
  double y = kTimelineTop;
  for (const Row& row : rows) {
    for (const std::string& line : row.lines) {
      y += kLabelLine;
      body += "<text x=\"" + coordinate_text(kTimelineLeft) + "\" y=\"" + coordinate_text(y - 3) +
              "\" font-size=\"11\">" + xml_escape(line) + "</text>";
    }
    std::string row_bars;
    size_t row_alert_bars = 0;
    for (const Row::Bar& b : row.bars) {
      const double from = scale.x(b.from);
      row_bars += "<rect class=\"" + std::string(b.kind) + "\" x=\"" + coordinate_text(from) +
                  "\" y=\"" + coordinate_text(y + 1) + "\" width=\"" +
                  coordinate_text(std::max(scale.x(b.to) - from, 1.5)) + "\" height=\"" +
                  coordinate_text(kBar - 2) + "\" fill=\"" + b.color + "\"><title>" +
                  xml_escape(std::string(b.kind) + " " + short_number_text(b.from) + " s to " +
                             short_number_text(b.to) + " s") +
                  "</title></rect>";
      if (std::string(b.kind) != "fault") ++row_alert_bars;
    }
    alert_bars += row_alert_bars;
    body += "<g class=\"" + std::string(row.bars.size() == row_alert_bars ? "series" : "faults") +
            "\" data-series=\"" + xml_escape(row.label) + "\" data-points=\"" +
            std::to_string(row.bars.size()) + "\">" + row_bars + "</g>";
    y += kBar + kRowGap;
  }
  return body;
}

// The colour keys above the rows (fault's only when there are faults).
std::string render_timeline_legend(bool with_faults) {
  std::string svg = "<g class=\"legend\">";
  double legend_x = kTimelineLeft;
  auto legend = [&](const char* color, const char* text) {
    svg += "<rect x=\"" + coordinate_text(legend_x) +
           "\" y=\"28\" width=\"14\" height=\"10\" fill=\"" + color + "\"/><text x=\"" +
           coordinate_text(legend_x + 20) + "\" y=\"37\" font-size=\"11\">" + text + "</text>";
    legend_x += 90;
  };
  legend(kPendingColor, "pending");
  legend(kFiringColor, "firing");
  if (with_faults) legend(kFaultColor, "fault");
  return svg + "</g>";
}

// The time axis at `axis_y`: its line, grid lines from the top, tick labels and the title.
std::string render_alert_time_axis(const AlertTimeScale& scale, double axis_y) {
  std::string svg = "<path d=\"M" + coordinate_text(kTimelineLeft) + " " + coordinate_text(axis_y) +
                    "H" + coordinate_text(kTimelineRight) + "\" stroke=\"#333\"/>";
  for (double t : nice_ticks(0, scale.end, 8)) {
    if (t > scale.end + 1e-9) continue;
    const std::string x = coordinate_text(scale.x(t));
    svg += "<line x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + coordinate_text(kTimelineTop) +
           "\" y2=\"" + coordinate_text(axis_y + 5) + "\" stroke=\"#e5e5e5\"/>";
    svg += "<text x=\"" + x + "\" y=\"" + coordinate_text(axis_y + 18) +
           "\" font-size=\"11\" text-anchor=\"middle\">" + short_number_text(t) + "</text>";
  }
  svg += "<text class=\"x-label\" x=\"" + coordinate_text((kTimelineLeft + kTimelineRight) / 2) +
         "\" y=\"" + coordinate_text(axis_y + 34) + "\" font-size=\"12\" text-anchor=\"middle\">" +
         "trace time (s)</text>";
  return svg;
}

}  // namespace

std::string render_alert_timeline(const std::vector<AlertWindow>& windows, double trace_end_s,
                                  const std::vector<FaultBar>& faults) {
  const AlertTimeScale scale{timeline_end(windows, trace_end_s)};
  const std::vector<Row> rows = timeline_rows(windows, faults, scale.end);
  double rows_height = 0;
  for (const Row& row : rows) rows_height += row_height(row);
  if (rows.empty()) rows_height = kLabelLine + kBar + kRowGap;
  const double height = kTimelineTop + rows_height + 44;
  const std::string h = coordinate_text(height);
  size_t alert_bars = 0;
  const std::string body = render_alert_rows(rows, scale, alert_bars);

  std::string svg =
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" data-plot=\"alerts\" "
      "data-points=\"" +
      std::to_string(alert_bars) + "\" width=\"1000\" height=\"" + h + "\" viewBox=\"0 0 1000 " +
      h + "\" role=\"img\">";
  svg += "<title>Alert firing windows</title>";
  svg +=
      "<text class=\"plot-title\" x=\"20\" y=\"20\" font-size=\"14\" font-weight=\"bold\">"
      "Alert firing windows</text>";
  svg += render_timeline_legend(!faults.empty());
  svg += body;
  if (rows.empty()) {
    svg += "<text x=\"" + coordinate_text((kTimelineLeft + kTimelineRight) / 2) + "\" y=\"" +
           coordinate_text(kTimelineTop + 15) +
           "\" font-size=\"13\" text-anchor=\"middle\" fill=\"#888\">no alert went pending</text>";
  }
  svg += render_alert_time_axis(scale, height - 40);
  svg += "</svg>";
  return svg;
}

ReportSection alert_section(const std::vector<AlertWindow>& windows, double trace_end_s,
                            const std::vector<FaultBar>& faults) {
  size_t fired = 0;
  for (const AlertWindow& w : windows) fired += w.fired_s.has_value();
  ReportSection section{"alerts", "Alert firing windows", "", {}};
  section.note = std::to_string(windows.size()) + " alert instances went pending, " +
                 std::to_string(fired) +
                 " fired. Amber: pending (the expression true, its `for` not yet over); red: "
                 "firing, until resolved or the end of the trace.";
  if (!faults.empty()) section.note += " Gray: the --fault windows the replay ran under.";
  section.figures.push_back(render_alert_timeline(windows, trace_end_s, faults));
  return section;
}

}  // namespace llm
