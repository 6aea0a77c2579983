#include "sim/report/html_report.h"

#include "sim/report/svg_text.h"

namespace llm {
namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1600px}"
    "h1{font-size:22px;margin:0 0 8px}h2{font-size:18px;margin:28px 0 8px;"
    "border-bottom:1px solid #ccc}"
    "code.command{display:block;background:#f4f4f4;padding:8px;white-space:pre-wrap;"
    "word-break:break-all}"
    "table.facts{border-collapse:collapse;margin-top:12px}"
    "table.facts td{padding:2px 14px 2px 0;font-size:14px}"
    "table.facts td.value{font-family:monospace}"
    "div.figures{display:flex;flex-wrap:wrap;gap:12px}"
    "svg.plot{background:#fff;border:1px solid #ddd}"
    "p.note{font-size:14px;max-width:1000px}"
    "table.slo{border-collapse:collapse;font-size:13px}"
    "table.slo td,table.slo th{border:1px solid #ddd;padding:2px 8px;text-align:left}"
    "table.slo td.met{color:#176017}table.slo td.missed{color:#b00020;font-weight:bold}";

bool needs_quotes(const std::string& arg) {
  if (arg.empty()) return true;
  for (char c : arg) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == ',' ||
                       c == ':' || c == '+' || c == '@' || c == '%';
    if (!plain) return true;
  }
  return false;
}

}  // namespace

std::string shell_command_line(const std::string& program, const std::vector<std::string>& args) {
  std::string line = program;
  for (const std::string& a : args) {
    line += ' ';
    if (!needs_quotes(a)) {
      line += a;
      continue;
    }
    line += '\'';
    for (char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

std::string render_html_report(const HtmlReport& r) {
  std::string h;
  h += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"/>";
  h += "<meta name=\"generator\" content=\"llmsim\"/>";
  h += "<title>" + xml_escape(r.title + ": " + r.trace_name) + "</title>";
  h += "<style>";
  h += kStyle;
  h += "</style></head><body>\n";
  h += "<header><h1>" + xml_escape(r.title) + "</h1>";
  h += "<div class=\"trace\">Trace: <b>" + xml_escape(r.trace_name) + "</b></div>";
  h += "<code class=\"command\">" + xml_escape(r.command_line) + "</code>";
  if (!r.facts.empty()) {
    h += "<table class=\"facts\">";
    for (const auto& [label, value] : r.facts) {
      h += "<tr><td>" + xml_escape(label) + "</td><td class=\"value\">" + xml_escape(value) +
           "</td></tr>";
    }
    h += "</table>";
  }
  h += "</header>\n";
  for (const ReportSection& s : r.sections) {
    h += "<section id=\"" + xml_escape(s.id) + "\"><h2>" + xml_escape(s.heading) + "</h2>";
    if (!s.note.empty()) h += "<p class=\"note\">" + xml_escape(s.note) + "</p>";
    h += "<div class=\"figures\">\n";
    for (const std::string& f : s.figures) h += f + "\n";
    h += "</div></section>\n";
  }
  h += "<footer><p class=\"note\">Drawn as inline SVG by llmsim (no plotting library, no "
       "network).</p></footer>\n</body></html>\n";
  return h;
}

}  // namespace llm
