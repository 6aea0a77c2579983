// Tests for the Azure CSV reader (sim/trace/trace_azure.cpp): exact timestamps, the tolerated
// variants and every error case. The published Azure traces are read in trace_io_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/trace/testing/trace_test_util.h"
#include "sim/trace/trace_io.h"

namespace llm {
namespace {

using testing::csv;
using testing::ErrorCase;
using testing::expect_errors;
using testing::kHeader;

TEST(AzureCsv, ParsesTimestampsExactlyToTheNanosecond) {
  Trace t = csv(kHeader +
                "2024-02-28 23:59:59.9999999,10,5\n"
                "2024-02-29 00:00:00.0000001,11,6\n"
                "2024-02-29 00:00:01,12,7\n"
                "2024-02-29 00:00:01.123456789,12,7\n"
                "2024-02-29 00:00:01.5,12,7\n"
                "2024-03-01 00:00:00.000000000,1,1\n");
  ASSERT_EQ(t.requests.size(), 6u);
  EXPECT_EQ(t.requests[0].arrival_ns, 0);
  EXPECT_EQ(t.requests[1].arrival_ns, 200);
  EXPECT_EQ(t.requests[2].arrival_ns, 1'000'000'100);
  EXPECT_EQ(t.requests[3].arrival_ns, 1'123'456'889);
  EXPECT_EQ(t.requests[4].arrival_ns, 1'500'000'100);
  EXPECT_EQ(t.requests[5].arrival_ns, 86'400'000'000'100);  // 2024 is a leap year
  EXPECT_EQ(t.requests[0].prompt_len, 10);
  EXPECT_EQ(t.requests[0].output_len, 5);
  EXPECT_EQ(t.requests[0].id, "2");  // ids are line numbers
  EXPECT_EQ(t.requests[5].id, "7");
  EXPECT_EQ(t.format, "azure-csv");
  EXPECT_EQ(t.source, "t.csv");
}

TEST(AzureCsv, ToleratesCrlfBomBlankLinesAndNoFinalNewline) {
  Trace t =
      csv("\xEF\xBB\xBFTIMESTAMP,ContextTokens,GeneratedTokens\r\n"
          "2023-11-16 18:15:46.6805900,374,44\r\n"
          "\r\n"
          "2023-11-16 18:15:50.9951690,396,109");
  ASSERT_EQ(t.requests.size(), 2u);
  EXPECT_EQ(t.requests[1].arrival_ns, 4'314'579'000);
  EXPECT_EQ(t.requests[1].output_len, 109);
  EXPECT_EQ(t.requests[1].id, "4");
}

TEST(AzureCsv, MapsColumnsByHeaderName) {
  Trace t = csv("GeneratedTokens,TIMESTAMP,ContextTokens\n7,2023-11-16 18:15:46,300\n");
  ASSERT_EQ(t.requests.size(), 1u);
  EXPECT_EQ(t.requests[0].prompt_len, 300);
  EXPECT_EQ(t.requests[0].output_len, 7);
}

TEST(AzureCsv, ClampsZeroTokenCountsToOne) {
  Trace t = csv(kHeader + "2023-11-16 18:15:46,0,0\n2023-11-16 18:15:47,5,0\n");
  EXPECT_EQ(t.requests[0].prompt_len, 1);
  EXPECT_EQ(t.requests[0].output_len, 1);
  EXPECT_EQ(t.requests[1].prompt_len, 5);
  EXPECT_EQ(t.requests[1].output_len, 1);
}

TEST(AzureCsv, EqualTimestampsAreInOrder) {
  Trace t = csv(kHeader + "2023-11-16 18:15:46.1,1,1\n2023-11-16 18:15:46.1,2,2\n");
  EXPECT_EQ(t.requests[1].arrival_ns, 0);
}

TEST(AzureCsv, ReportsEveryErrorWithLineAndField) {
  const std::string ts = "2023-11-16 18:15:46.6805900";
  const std::vector<ErrorCase> cases = {
      {"empty file", "", "t.csv:1: header: empty file"},
      {"only a header", kHeader, "t.csv:2: requests: no requests"},
      {"unknown column", "TIME,ContextTokens,GeneratedTokens\n",
       "t.csv:1: header: unknown column 'TIME'"},
      {"missing column", "TIMESTAMP,ContextTokens\n", "t.csv:1: header: 2 columns"},
      {"extra column", "TIMESTAMP,ContextTokens,GeneratedTokens,X\n", "t.csv:1: header: 4 columns"},
      {"duplicate column", "TIMESTAMP,ContextTokens,ContextTokens\n",
       "t.csv:1: header: duplicate column 'ContextTokens'"},
      {"too few fields", kHeader + ts + ",1,1\n" + ts + ",1\n",
       "t.csv:3: row: expected 3 comma-separated fields, found 2"},
      {"too many fields", kHeader + ts + ",1,1,1\n",
       "t.csv:2: row: expected 3 comma-separated fields, found 4"},
      {"bad timestamp", kHeader + "yesterday,1,1\n",
       "t.csv:2: TIMESTAMP: 'yesterday' is not a time"},
      {"time zone", kHeader + ts + "Z,1,1\n", "t.csv:2: TIMESTAMP:"},
      {"bad date", kHeader + "2023-02-29 00:00:00,1,1\n", "t.csv:2: TIMESTAMP:"},
      {"bad hour", kHeader + "2023-02-28 24:00:00,1,1\n", "t.csv:2: TIMESTAMP:"},
      {"ten fraction digits", kHeader + "2023-02-28 10:00:00.0123456789,1,1\n",
       "t.csv:2: TIMESTAMP:"},
      {"dot without digits", kHeader + "2023-02-28 10:00:00.,1,1\n", "t.csv:2: TIMESTAMP:"},
      {"text tokens", kHeader + ts + ",12a,1\n", "t.csv:2: ContextTokens: '12a' is not an integer"},
      {"fractional tokens", kHeader + ts + ",1,2.5\n",
       "t.csv:2: GeneratedTokens: '2.5' is not an integer"},
      {"empty tokens", kHeader + ts + ",,1\n", "t.csv:2: ContextTokens: '' is not an integer"},
      {"overflowing tokens", kHeader + ts + ",99999999999999999999,1\n",
       "t.csv:2: ContextTokens: '99999999999999999999' is not an integer"},
      {"negative prompt", kHeader + ts + ",-5,1\n",
       "t.csv:2: ContextTokens: negative token count -5"},
      {"negative output", kHeader + ts + ",1,1\n" + ts + ",5,-1\n",
       "t.csv:3: GeneratedTokens: negative token count -1"},
      {"centuries later", kHeader + ts + ",1,1\n9999-01-01 00:00:00,1,1\n",
       "t.csv:3: TIMESTAMP: more than 290 years after the first row"},
      // Found by fuzz/trace_reader_fuzz: the arrival's nanoseconds overflowed int64 (UBSan).
      {"centuries earlier",
       kHeader + "6077-11-16 18:15:46.6805900,374,44\n3023-11-16 18:15:50.9951690,396,109\r\n",
       "t.csv:3: TIMESTAMP: more than 290 years before the first row"},
      {"out of order", kHeader + ts + ",1,1\n2023-11-16 18:15:47,1,1\n2023-11-16 18:15:46.9,1,1\n",
       "t.csv:4: TIMESTAMP: out of time order: earlier than the previous row (line 3)"},
  };
  expect_errors(cases, [](const std::string& input) { csv(input); });
}

}  // namespace
}  // namespace llm
