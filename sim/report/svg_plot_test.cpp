#include "sim/report/svg_plot.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/report/testing/xml_check.h"

namespace llm {
namespace {

using testing::attribute;
using testing::start_tags;
using testing::xml_error;

Plot two_series_plot() {
  Plot p;
  p.id = "demo";
  p.title = "Requests <running> & waiting";
  p.x_label = "trace time (s)";
  p.y_label = "requests";
  p.series.push_back({"running", {0, 5, 10}, {1, 4, 2}});
  p.series.push_back({"waiting", {0, 5, 10, 15}, {0, NAN, 3, 1}, false, true});
  p.references.push_back({"SLO target 2 s", 2});
  return p;
}

TEST(SvgPlot, IsWellFormedAndCarriesTitleLabelsAndLegend) {
  const std::string svg = render_svg_plot(two_series_plot());
  EXPECT_EQ(xml_error(svg), "");
  EXPECT_NE(svg.find("Requests &lt;running&gt; &amp; waiting"), std::string::npos);
  EXPECT_NE(svg.find(">trace time (s)</text>"), std::string::npos);
  EXPECT_NE(svg.find(">requests</text>"), std::string::npos);
  for (const char* legend : {">running</text>", ">waiting</text>", ">SLO target 2 s</text>"}) {
    EXPECT_NE(svg.find(legend), std::string::npos) << legend;
  }
  const auto root = start_tags(svg, "svg");
  ASSERT_EQ(root.size(), 1u);
  EXPECT_EQ(attribute(root[0], "data-plot"), "demo");
  EXPECT_EQ(attribute(root[0], "data-points"), "6");  // the NaN point is left out
}

TEST(SvgPlot, AxesSpanningDecadesAreLogarithmicSoATargetStaysVisible) {
  Plot p;
  p.id = "ttft";
  p.y_label = "ttft_p99 (s)";
  p.series.push_back({"ttft_p99", {1, 2, 4}, {1177, 40, 1.5}, true, true});
  p.references.push_back({"SLO target 2 s", 2});
  EXPECT_TRUE(log_y_axis(p));
  const std::string svg = render_svg_plot(p);
  EXPECT_EQ(xml_error(svg), "");
  EXPECT_EQ(attribute(start_tags(svg, "svg")[0], "data-y-scale"), "log");
  EXPECT_NE(svg.find(">ttft_p99 (s) (log scale)</text>"), std::string::npos);
  // The 2 s target sits clear of the bottom: on a linear axis to 1,200 it would be at 0.2%.
  const auto refs = start_tags(svg, "line");
  double target_y = -1;
  for (const auto& tag : refs) {
    if (attribute(tag, "class") == "reference") target_y = std::stod(attribute(tag, "y1"));
  }
  ASSERT_GT(target_y, 0);
  EXPECT_LT(target_y, 250 - 0.05 * (250 - 34));  // log: 7.5% of the way up (linear: 0.2%)
  // A series with a zero, or one decade, stays linear.
  p.series[0].y = {0, 40, 1.5};
  EXPECT_FALSE(log_y_axis(p));
  p.series[0].y = {10, 40, 50};
  p.references.clear();
  EXPECT_FALSE(log_y_axis(p));
}

TEST(SvgPlot, LongLegendEntriesWrapInsteadOfBeingCut) {
  EXPECT_EQ(wrap_text("SLO target 2 s", 26), (std::vector<std::string>{"SLO target 2 s"}));
  EXPECT_EQ(wrap_text("--max-num-seqs 64 --kv-cache-dtype fp8", 20),
            (std::vector<std::string>{"--max-num-seqs 64", "--kv-cache-dtype fp8"}));
  EXPECT_EQ(wrap_text("abcdefghij", 4), (std::vector<std::string>{"abcd", "efgh", "ij"}));
  EXPECT_EQ(wrap_text("p50 6.741 ms,\np90 7.99 ms,\np99 8 ms", 26),
            (std::vector<std::string>{"p50 6.741 ms,", "p90 7.99 ms,", "p99 8 ms"}));
  EXPECT_EQ(wrap_text("a\n\nb", 26), (std::vector<std::string>{"a", "", "b"}));
  Plot p = two_series_plot();
  p.series[0].name = "engine 0 with --max-num-seqs 64 --kv-cache-dtype fp8";
  const std::string svg = render_svg_plot(p);
  EXPECT_EQ(svg.find("..."), std::string::npos);
  for (const char* line :
       {">engine 0 with</text>", ">--max-num-seqs 64</text>", ">--kv-cache-dtype fp8</text>"}) {
    EXPECT_NE(svg.find(line), std::string::npos) << line;
  }
}

TEST(SvgPlot, MarkersStayInsideThePlotArea) {
  Plot p;
  p.id = "m";
  p.series.push_back({"points", {1, 16}, {0, 10}, false, true});
  const std::string svg = render_svg_plot(p);
  const std::string plotted = svg.substr(0, svg.find("<g class=\"legend\">"));
  ASSERT_EQ(start_tags(plotted, "circle").size(), 2u);
  for (const auto& c : start_tags(plotted, "circle")) {
    const double cx = std::stod(attribute(c, "cx")), cy = std::stod(attribute(c, "cy"));
    EXPECT_GE(cx - 3.5, 72);
    EXPECT_LE(cx + 3.5, 580);
    EXPECT_GE(cy - 3.5, 34);
    EXPECT_LE(cy + 3.5, 250);
  }
}

TEST(SvgPlot, EachSeriesIsAGroupWithItsPointCount) {
  const std::string svg = render_svg_plot(two_series_plot());
  const auto groups = start_tags(svg, "g");
  std::vector<std::pair<std::string, std::string>> series;
  for (const auto& g : groups) {
    if (attribute(g, "class") == "series") {
      series.emplace_back(attribute(g, "data-series"), attribute(g, "data-points"));
    }
  }
  const std::vector<std::pair<std::string, std::string>> want = {{"running", "3"},
                                                                 {"waiting", "3"}};
  EXPECT_EQ(series, want);
  // A line for the first, markers (no line) for the second, a dashed reference line.
  const auto polylines = start_tags(svg, "polyline");
  ASSERT_EQ(polylines.size(), 1u);
  EXPECT_EQ(std::count(polylines[0].begin(), polylines[0].end(), ','), 3);
  const size_t legend_at = svg.find("<g class=\"legend\">");
  ASSERT_NE(legend_at, std::string::npos);
  const std::string plotted = svg.substr(0, legend_at), legend = svg.substr(legend_at);
  EXPECT_EQ(start_tags(plotted, "circle").size(), 3u);
  size_t references = 0;
  for (const auto& l : start_tags(svg, "line")) references += attribute(l, "class") == "reference";
  EXPECT_EQ(references, 1u);
  // The legend keys as the chart draws them: a line, a dot (markers alone), a dashed line.
  EXPECT_EQ(start_tags(legend, "circle").size(), 1u);
  const auto keys = start_tags(legend, "line");
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(attribute(keys[0], "stroke-dasharray"), "");
  EXPECT_EQ(attribute(keys[1], "stroke-dasharray"), "5 3");
}

TEST(SvgPlot, CategoricalAxisLabelsEachCategory) {
  Plot p;
  p.id = "cat";
  p.title = "t";
  p.x_label = "--kv-cache-dtype";
  p.y_label = "ttft_p99 (s)";
  p.x_categories = {"auto", "fp8"};
  p.series.push_back({"best", {0, 1}, {0.5, 0.25}, true, true});
  const std::string svg = render_svg_plot(p);
  EXPECT_EQ(xml_error(svg), "");
  EXPECT_NE(svg.find(">auto</text>"), std::string::npos);
  EXPECT_NE(svg.find(">fp8</text>"), std::string::npos);
}

TEST(SvgPlot, AnEmptyPlotSaysSo) {
  Plot p;
  p.id = "empty";
  p.series.push_back({"nothing", {}, {}});
  const std::string svg = render_svg_plot(p);
  EXPECT_EQ(xml_error(svg), "");
  EXPECT_EQ(attribute(start_tags(svg, "svg")[0], "data-points"), "0");
  EXPECT_NE(svg.find(">no data</text>"), std::string::npos);
  EXPECT_TRUE(start_tags(svg, "polyline").empty());
}

TEST(NiceTicks, StepsOfOneTwoOrFive) {
  struct Row {
    double lo, hi;
    std::vector<double> want;
  };
  for (const Row& r : {Row{0, 10, {0, 2, 4, 6, 8, 10}}, Row{0, 1, {0, 0.2, 0.4, 0.6, 0.8, 1}},
                       Row{0, 3503, {0, 1000, 2000, 3000}}, Row{0, 45, {0, 10, 20, 30, 40}}}) {
    const auto got = nice_ticks(r.lo, r.hi, 5);
    ASSERT_EQ(got.size(), r.want.size()) << r.lo << ".." << r.hi;
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], r.want[i], 1e-9);
  }
}

RC_GTEST_PROP(NiceTicks, EvenlySpacedInsideTheRange, ()) {
  const double lo = *rc::gen::inRange(-1000, 1000) / 7.0;
  const double span = *rc::gen::inRange(1, 100000) / 13.0;
  const double hi = lo + span;
  const auto ticks = nice_ticks(lo, hi, 5);
  RC_ASSERT(ticks.size() >= 2u);
  RC_ASSERT(ticks.size() <= 12u);
  const double step = ticks[1] - ticks[0];
  for (size_t i = 0; i < ticks.size(); ++i) {
    RC_ASSERT(ticks[i] >= lo - step * 1e-6);
    RC_ASSERT(ticks[i] <= hi + step * 1e-6);
    if (i > 0) RC_ASSERT(std::abs(ticks[i] - ticks[i - 1] - step) < step * 1e-6);
  }
  const double mantissa = step / std::pow(10, std::floor(std::log10(step) + 1e-9));
  RC_ASSERT(std::abs(mantissa - 1) < 1e-6 || std::abs(mantissa - 2) < 1e-6 ||
            std::abs(mantissa - 5) < 1e-6);
}

RC_GTEST_PROP(SvgPlot, AnySeriesRendersWellFormedWithItsFinitePoints, ()) {
  const auto ys = *rc::gen::container<std::vector<int>>(rc::gen::inRange(-500, 500));
  Plot p;
  p.id = "prop";
  p.title = *rc::gen::arbitrary<std::string>();
  PlotSeries s{*rc::gen::arbitrary<std::string>(), {}, {}, true, *rc::gen::arbitrary<bool>()};
  size_t finite = 0;
  for (size_t i = 0; i < ys.size(); ++i) {
    s.x.push_back(static_cast<double>(i));
    s.y.push_back(ys[i] == 0 ? NAN : ys[i] / 3.0);
    finite += ys[i] != 0;
  }
  p.series.push_back(s);
  const std::string svg = render_svg_plot(p);
  RC_ASSERT(xml_error(svg) == "");
  RC_ASSERT(attribute(start_tags(svg, "svg")[0], "data-points") == std::to_string(finite));
}

}  // namespace
}  // namespace llm
