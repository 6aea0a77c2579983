// The self-contained HTML report of llmsim (replay, sweep, capacity): a header with the command
// line and the trace, a table of headline figures, and sections of plots drawn as inline SVG by
// sim/report/svg_plot.h. No script, no stylesheet or font from the network, no plotting library:
// the file opens offline in any browser. The output is also well-formed XML.
// Thread-safety: pure functions over plain structs.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace llm {

struct ReportSection {
  std::string id;  // [a-z0-9_-], unique within the report
  std::string heading;
  std::string note;                  // a paragraph under the heading (plain text), may be empty
  std::vector<std::string> figures;  // rendered <svg> elements
};

struct HtmlReport {
  std::string title;         // e.g. "llmsim replay"
  std::string command_line;  // as typed
  std::string trace_name;
  std::vector<std::pair<std::string, std::string>> facts;  // headline figures, label and value
  std::vector<ReportSection> sections;
};

std::string render_html_report(const HtmlReport& report);

// The command line of `program` with `args`, each argument single-quoted when the shell would
// need it, for a report's header.
std::string shell_command_line(const std::string& program, const std::vector<std::string>& args);

}  // namespace llm
