#include "sim/report/svg_text.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(SvgText, EscapesWhatXmlReserves) {
  struct Row {
    const char* in;
    const char* want;
  };
  for (const Row& r :
       {Row{"plain", "plain"}, Row{"a<b", "a&lt;b"}, Row{"a>b", "a&gt;b"}, Row{"a&b", "a&amp;b"},
        Row{"say \"x\"", "say &quot;x&quot;"}, Row{"it's", "it&#39;s"},
        Row{"tab\there", "tab\there"}, Row{"bell\x07", "bell "}, Row{"", ""}}) {
    EXPECT_EQ(xml_escape(r.in), r.want) << r.in;
  }
}

TEST(SvgText, CoordinatesHaveOneDecimalAtMost) {
  struct Row {
    double in;
    const char* want;
  };
  for (const Row& r : {Row{0, "0"}, Row{12.5, "12.5"}, Row{12.54, "12.5"}, Row{12.96, "13"},
                       Row{-3, "-3"}, Row{-0.01, "0"}, Row{250, "250"}}) {
    EXPECT_EQ(coordinate_text(r.in), r.want) << r.in;
  }
}

TEST(SvgText, NumbersKeepFourSignificantDigits) {
  struct Row {
    double in;
    const char* want;
  };
  for (const Row& r : {Row{0, "0"}, Row{0.25, "0.25"}, Row{1200, "1200"}, Row{1.23456, "1.235"},
                       Row{1.5e6, "1.5e+06"}, Row{1e-13, "0"}, Row{-2, "-2"}, Row{30000, "30000"},
                       Row{12345.6, "12346"}, Row{-20000, "-20000"}}) {
    EXPECT_EQ(short_number_text(r.in), r.want) << r.in;
  }
}

}  // namespace
}  // namespace llm
