#include "sim/report/html_report.h"

#include <gtest/gtest.h>

#include "sim/report/svg_plot.h"
#include "sim/report/testing/xml_check.h"

namespace llm {
namespace {

using testing::start_tags;
using testing::xml_error;

HtmlReport sample_report() {
  HtmlReport r;
  r.title = "llmsim replay";
  r.command_line = "llmsim replay 'a b.json' --report <r>.html";
  r.trace_name = "a b.json";
  r.facts = {{"Requests", "400"}, {"TTFT p99", "85 ms"}};
  Plot p;
  p.id = "one";
  p.series.push_back({"s", {0, 1}, {1, 2}});
  r.sections.push_back({"over-time", "Over time", "a note & more", {render_svg_plot(p)}});
  r.sections.push_back({"empty", "Nothing here", "", {}});
  return r;
}

TEST(HtmlReport, IsWellFormedWithHeaderFactsAndSections) {
  const std::string html = render_html_report(sample_report());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_EQ(xml_error(html), "");
  EXPECT_NE(html.find("<title>llmsim replay: a b.json</title>"), std::string::npos);
  EXPECT_NE(html.find("llmsim replay &#39;a b.json&#39; --report &lt;r&gt;.html"),
            std::string::npos);
  EXPECT_NE(html.find("<td>TTFT p99</td><td class=\"value\">85 ms</td>"), std::string::npos);
  EXPECT_NE(html.find("<p class=\"note\">a note &amp; more</p>"), std::string::npos);
  EXPECT_EQ(start_tags(html, "section").size(), 2u);
  EXPECT_EQ(start_tags(html, "svg").size(), 1u);
}

TEST(HtmlReport, NeedsNothingFromTheNetwork) {
  const std::string html = render_html_report(sample_report());
  for (const char* outside : {"<script", "<link", "src=", "http://", "https://", "@import"}) {
    // The only URL allowed is the SVG namespace (an identifier, never fetched).
    size_t at = html.find(outside);
    while (at != std::string::npos && html.compare(at, 26, "http://www.w3.org/2000/svg") == 0) {
      at = html.find(outside, at + 1);
    }
    EXPECT_EQ(at, std::string::npos) << outside;
  }
}

TEST(ShellCommandLine, QuotesOnlyWhatTheShellWouldSplit) {
  struct Row {
    std::vector<std::string> args;
    const char* want;
  };
  for (const Row& r :
       {Row{{}, "llmsim replay"},
        Row{{"t.json", "--max-num-seqs", "8"}, "llmsim replay t.json --max-num-seqs 8"},
        Row{{"synthetic:n=10,rate=2"}, "llmsim replay synthetic:n=10,rate=2"},
        Row{{"a b"}, "llmsim replay 'a b'"}, Row{{""}, "llmsim replay ''"},
        Row{{"it's"}, "llmsim replay 'it'\\''s'"}, Row{{"$HOME"}, "llmsim replay '$HOME'"}}) {
    EXPECT_EQ(shell_command_line("llmsim replay", r.args), r.want);
  }
}

TEST(XmlCheck, CatchesWhatIsNotWellFormed) {
  struct Row {
    const char* text;
    const char* error;  // substring
  };
  for (const Row& r :
       {Row{"<a><b></a>", "does not close"}, Row{"<a>", "never closed"}, Row{"<a x=1/>", "quoted"},
        Row{"<a>&nbsp;</a>", "unknown entity"}, Row{"<a x=\"1\" x=\"2\"/>", "duplicate"},
        Row{"<a/><b/>", "second root"}, Row{"text", "outside"}, Row{"", "no root"}}) {
    EXPECT_NE(xml_error(r.text).find(r.error), std::string::npos)
        << r.text << ": " << xml_error(r.text);
  }
  EXPECT_EQ(xml_error("<!DOCTYPE html>\n<a b=\"&amp;\"><c/>x &lt; y<!-- c --></a>\n"), "");
}

}  // namespace
}  // namespace llm
