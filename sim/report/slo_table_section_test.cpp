// The sweep report's per-point SLO table (sim/report/slo_table_section.h): one row per point in
// the order given, each figure target's value with met or missed, the point's verdict, a failed
// point's reason, and the targets as a line in the note; well-formed XML.
#include "sim/report/slo_table_section.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "sim/report/testing/xml_check.h"

namespace llm {
namespace {

using testing::xml_error;

// The text of each <td> of the table's rows, row by row (the heading row left out).
std::vector<std::vector<std::string>> cells(const std::string& html) {
  std::vector<std::vector<std::string>> rows;
  size_t at = 0;
  while ((at = html.find("<tr>", at)) != std::string::npos) {
    const size_t end = html.find("</tr>", at);
    std::vector<std::string> row;
    for (size_t td = html.find("<td", at); td < end; td = html.find("<td", td + 1)) {
      const size_t open = html.find('>', td) + 1;
      row.push_back(html.substr(open, html.find("</td>", open) - open));
    }
    if (!row.empty()) rows.push_back(row);
    at = end;
  }
  return rows;
}

SloResult result(std::string key, double value, double target, bool met) {
  return {.key = std::move(key), .value = value, .target = target, .met = met, .detail = {}};
}

TEST(SloTableSection, EachPointsFiguresWithMetOrMissedAndTheTargetsInTheNote) {
  const std::vector<SloTarget> targets =
      parse_slo("ttft_p99=2s,output_tokens_per_s=100,ttft=1s,attainment>=0.9");
  const std::vector<SloTableRow> rows = {
      {"1_max-num-seqs=64",
       {{"max-num-seqs", "64"}},
       {result("ttft_p99", 0.85, 2, true), result("output_tokens_per_s", 120, 100, true),
        result("attainment", 0.95, 0.9, true)},
       ""},
      {"0_max-num-seqs=8",
       {{"max-num-seqs", "8"}},
       {result("ttft_p99", 3.5, 2, false), result("output_tokens_per_s", 80, 100, false),
        result("attainment", 0.5, 0.9, false)},
       ""},
      {"2_max-num-seqs=512", {{"max-num-seqs", "512"}}, {}, "out of memory"}};
  const ReportSection s = slo_table_section(targets, rows);
  EXPECT_EQ(s.id, "sweep-slo");
  ASSERT_EQ(s.figures.size(), 1u);
  const std::string& html = s.figures[0];
  EXPECT_EQ(xml_error(html), "") << html;
  EXPECT_NE(s.note.find("SLO: " + describe_slo(targets)), std::string::npos) << s.note;
  EXPECT_NE(s.note.find("1 of 3 points meet every target"), std::string::npos) << s.note;
  // A column per figure target (the per-request ttft is attainment's parameter, not a column).
  EXPECT_NE(html.find("<th>--max-num-seqs</th><th>ttft_p99 &lt;= 2 s</th>"
                      "<th>output_tokens_per_s &gt;= 100</th><th>attainment &gt;= 0.9</th>"
                      "<th>every target</th>"),
            std::string::npos)
      << html;
  const auto got = cells(html);
  ASSERT_EQ(got.size(), 3u) << html;
  EXPECT_EQ(got[0], (std::vector<std::string>{"1", "1_max-num-seqs=64", "64", "850 ms met",
                                              "120 met", "0.95 met", "met"}));
  EXPECT_EQ(got[1], (std::vector<std::string>{"2", "0_max-num-seqs=8", "8", "3.5 s missed",
                                              "80 missed", "0.5 missed", "MISSED"}));
  EXPECT_EQ(got[2],
            (std::vector<std::string>{"3", "2_max-num-seqs=512", "512", "failed: out of memory"}));
  EXPECT_NE(html.find("<td class=\"missed\" colspan=\"4\">failed: out of memory</td>"),
            std::string::npos)
      << html;
}

}  // namespace
}  // namespace llm
