// Tests for the Mooncake JSONL reader (sim/trace/trace_mooncake.cpp): the fields it reads and every
// error case. The published Mooncake trace is read in trace_io_test.cpp.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "sim/trace/testing/trace_test_util.h"
#include "sim/trace/trace_io.h"

namespace llm {
namespace {

using testing::ErrorCase;
using testing::expect_errors;

Trace jsonl(const std::string& text) {
  std::istringstream in(text);
  return parse_mooncake_jsonl(in, "t.jsonl");
}

TEST(MooncakeJsonl, ParsesFields) {
  Trace t = jsonl(
      "{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 5, \"hash_ids\": [7, 8]}\n"
      "\n"
      "{\"timestamp\": 1.5, \"input_length\": 1025, \"output_length\": 1, \"hash_ids\": [7],"
      " \"extra\": true}\n"
      "{\"timestamp\": 27, \"input_length\": 3, \"output_length\": 2, \"hash_ids\": []}");
  ASSERT_EQ(t.requests.size(), 3u);
  EXPECT_EQ(t.format, "mooncake-jsonl");
  EXPECT_EQ(t.requests[0].id, "1");
  EXPECT_EQ(t.requests[0].arrival_ns, 0);
  EXPECT_EQ(t.requests[0].prompt_len, 1024);
  EXPECT_EQ(t.requests[0].output_len, 5);
  EXPECT_EQ(t.requests[0].prefix_hash_ids, (std::vector<uint64_t>{7, 8}));
  EXPECT_EQ(t.requests[0].hash_block_size, 512);
  EXPECT_EQ(t.requests[1].id, "3");
  EXPECT_EQ(t.requests[1].arrival_ns, 1'500'000);
  EXPECT_EQ(t.requests[1].prefix_hash_ids.size(), 1u);  // fewer ids than blocks is accepted
  EXPECT_EQ(t.requests[2].arrival_ns, 27'000'000);
  EXPECT_TRUE(t.requests[2].prefix_hash_ids.empty());
  EXPECT_EQ(t.requests[2].hash_block_size, 0);
}

TEST(MooncakeJsonl, ReportsEveryErrorWithLineAndField) {
  const std::string ok =
      "{\"timestamp\": 5, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2]}\n";
  auto row = [](const std::string& fields) { return "{" + fields + "}\n"; };
  const std::string rest = "\"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1]";
  const std::vector<ErrorCase> cases = {
      {"empty file", "", "t.jsonl:1: requests: no requests"},
      {"malformed", ok + "{\"timestamp\": 1,,}\n", "t.jsonl:2: json: malformed JSON"},
      {"not an object", "[1, 2]\n", "t.jsonl:1: json: expected an object"},
      {"missing timestamp", row(rest), "t.jsonl:1: timestamp: missing field"},
      {"missing input_length", row("\"timestamp\": 0, \"output_length\": 5, \"hash_ids\": []"),
       "t.jsonl:1: input_length: missing field"},
      {"missing output_length", row("\"timestamp\": 0, \"input_length\": 5, \"hash_ids\": []"),
       "t.jsonl:1: output_length: missing field"},
      {"missing hash_ids", row("\"timestamp\": 0, \"input_length\": 5, \"output_length\": 5"),
       "t.jsonl:1: hash_ids: missing field"},
      {"string timestamp", row("\"timestamp\": \"0\", " + rest),
       "t.jsonl:1: timestamp: must be a number"},
      {"negative timestamp", row("\"timestamp\": -1, " + rest),
       "t.jsonl:1: timestamp: must be >= 0"},
      {"negative float timestamp", row("\"timestamp\": -0.5, " + rest),
       "t.jsonl:1: timestamp: must be >= 0"},
      {"infinite timestamp", row("\"timestamp\": 1e999, " + rest),
       "t.jsonl:1: json: number out of range"},
      {"out of order", ok + ok + row("\"timestamp\": 4, " + rest),
       "t.jsonl:3: timestamp: out of time order: earlier than line 2"},
      {"string length",
       row("\"timestamp\": 0, \"input_length\": \"600\", \"output_length\": 5, \"hash_ids\": []"),
       "t.jsonl:1: input_length: must be an integer"},
      {"fractional length",
       row("\"timestamp\": 0, \"input_length\": 6.5, \"output_length\": 5, \"hash_ids\": []"),
       "t.jsonl:1: input_length: must be an integer"},
      {"negative input",
       row("\"timestamp\": 0, \"input_length\": -3, \"output_length\": 5, \"hash_ids\": []"),
       "t.jsonl:1: input_length: must be >= 1, got -3"},
      {"zero output",
       row("\"timestamp\": 0, \"input_length\": 3, \"output_length\": 0, \"hash_ids\": []"),
       "t.jsonl:1: output_length: must be >= 1, got 0"},
      {"hash_ids not an array",
       row("\"timestamp\": 0, \"input_length\": 3, \"output_length\": 1, \"hash_ids\": 4"),
       "t.jsonl:1: hash_ids: must be an array"},
      {"negative hash id",
       row("\"timestamp\": 0, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [1, -2]"),
       "t.jsonl:1: hash_ids[1]: must be a non-negative integer"},
      {"too many hash ids",
       row("\"timestamp\": 0, \"input_length\": 600, \"output_length\": 1, \"hash_ids\": [1, 2, "
           "3]"),
       "t.jsonl:1: hash_ids: 3 ids but input_length 600 has only 2 blocks of 512 tokens"},
  };
  expect_errors(cases, [](const std::string& input) { jsonl(input); });
}

}  // namespace
}  // namespace llm
