// Tests for the trace readers and writer (sim/trace_io.h): every error case, exact Azure
// timestamps, the real public traces in ../shared/traces (skipped when absent), the shipped
// samples in traces/, JSON round trips, and scale_arrivals.
#include "sim/trace_io.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace llm {
namespace {

const std::string kSharedTraces = LLM_SOURCE_DIR "/../shared/traces/";
const std::string kAzureCode = kSharedTraces + "AzureLLMInferenceTrace_code.csv";
const std::string kAzureConv = kSharedTraces + "AzureLLMInferenceTrace_conv.csv";
const std::string kMooncake = kSharedTraces + "mooncake_conversation_trace.jsonl";
const std::string kOurTraces = LLM_SOURCE_DIR "/traces/";

bool have_shared_traces() { return std::filesystem::exists(kAzureConv); }

#define SKIP_WITHOUT_SHARED_TRACES()                                                \
  if (!have_shared_traces()) {                                                      \
    GTEST_SKIP() << "public traces not found in " << kSharedTraces << "; skipping"; \
  }

Trace csv(const std::string& text) {
  std::istringstream in(text);
  return parse_azure_csv(in, "t.csv");
}

Trace jsonl(const std::string& text) {
  std::istringstream in(text);
  return parse_mooncake_jsonl(in, "t.jsonl");
}

Trace json_trace(const std::string& text, TraceMetadata* metadata = nullptr) {
  std::istringstream in(text);
  return parse_trace_json(in, "t.json", metadata);
}

// The TraceError message of f(), or a failure when f does not throw one.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no TraceError thrown";
  return "";
}

bool same_request(const TraceRequest& a, const TraceRequest& b) {
  return a.id == b.id && a.arrival_ns == b.arrival_ns && a.prompt_len == b.prompt_len &&
         a.prompt_tokens == b.prompt_tokens && a.output_len == b.output_len &&
         a.prefix_hash_ids == b.prefix_hash_ids && a.hash_block_size == b.hash_block_size &&
         a.n == b.n && a.max_tokens == b.max_tokens && a.priority == b.priority;
}

void expect_same_requests(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.requests.size(), b.requests.size());
  for (size_t i = 0; i < a.requests.size(); ++i) {
    ASSERT_TRUE(same_request(a.requests[i], b.requests[i])) << "request " << i;
  }
}

Trace round_trip(const Trace& t, TraceMetadata* metadata = nullptr,
                 const TraceMetadata& written = {}) {
  std::ostringstream out;
  write_trace_json(t, out, written);
  return json_trace(out.str(), metadata);
}

double millis_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

struct ErrorCase {
  const char* label;
  std::string input;
  std::string expected;  // a substring of the message
};

// ---------------------------------------------------------------------------------------------
// Azure CSV

const std::string kHeader = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

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
      {"out of order", kHeader + ts + ",1,1\n2023-11-16 18:15:47,1,1\n2023-11-16 18:15:46.9,1,1\n",
       "t.csv:4: TIMESTAMP: out of time order: earlier than the previous row (line 3)"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.label);
    std::string message = error_of([&] { csv(c.input); });
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
}

// ---------------------------------------------------------------------------------------------
// Mooncake JSONL

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
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.label);
    std::string message = error_of([&] { jsonl(c.input); });
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
}

// ---------------------------------------------------------------------------------------------
// Our JSON format

TEST(TraceJson, ParsesAllFieldsAndDefaults) {
  TraceMetadata meta;
  Trace t = json_trace(R"({
    "metadata": {"name": "x", "description": "d", "source": "s", "license": "l", "time_unit": "ms"},
    "requests": [
      {"arrival": 1.5, "prompt_len": 3, "output_len": 2},
      {"id": "b", "arrival": 2, "prompt_tokens": [5, 6, 7], "prompt_len": 3, "output_len": 4,
       "prefix_hash_ids": [9, 10], "hash_block_size": 2, "n": 3, "max_tokens": 8, "priority": -1},
      {"id": "c", "arrival": 2, "prompt_tokens": [1], "output_len": 1,
       "prefix_hash_ids": [], "hash_block_size": 16}
    ]})",
                       &meta);
  EXPECT_EQ(meta.name, "x");
  EXPECT_EQ(meta.description, "d");
  EXPECT_EQ(meta.source, "s");
  EXPECT_EQ(meta.license, "l");
  EXPECT_EQ(meta.time_unit, "ms");
  EXPECT_EQ(t.format, "json");
  ASSERT_EQ(t.requests.size(), 3u);
  const TraceRequest& a = t.requests[0];
  EXPECT_EQ(a.id, "0");
  EXPECT_EQ(a.arrival_ns, 1'500'000);
  EXPECT_EQ(a.prompt_len, 3);
  EXPECT_TRUE(a.prompt_tokens.empty());
  EXPECT_EQ(a.n, 1);
  EXPECT_EQ(a.max_tokens, -1);
  EXPECT_EQ(a.priority, 0);
  EXPECT_EQ(a.hash_block_size, 0);
  const TraceRequest& b = t.requests[1];
  EXPECT_EQ(b.arrival_ns, 2'000'000);
  EXPECT_EQ(b.prompt_tokens, (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(b.prefix_hash_ids, (std::vector<uint64_t>{9, 10}));
  EXPECT_EQ(b.hash_block_size, 2);
  EXPECT_EQ(b.n, 3);
  EXPECT_EQ(b.max_tokens, 8);
  EXPECT_EQ(b.priority, -1);
  EXPECT_EQ(t.requests[2].prompt_len, 1);
  EXPECT_EQ(t.requests[2].hash_block_size, 0);  // no ids: no block size
}

TEST(TraceJson, TimeUnits) {
  auto first_arrival = [](const std::string& unit, const std::string& arrival) {
    std::string meta = unit.empty() ? "" : "\"metadata\": {\"time_unit\": \"" + unit + "\"}, ";
    return json_trace("{" + meta + "\"requests\": [{\"arrival\": " + arrival +
                      ", \"prompt_len\": 1, \"output_len\": 1}]}")
        .requests[0]
        .arrival_ns;
  };
  EXPECT_EQ(first_arrival("", "4.314579"), 4'314'579'000);  // default: seconds
  EXPECT_EQ(first_arrival("s", "3600.1234567"), 3'600'123'456'700);
  EXPECT_EQ(first_arrival("s", "7"), 7'000'000'000);
  EXPECT_EQ(first_arrival("ms", "0.000001"), 1);
  EXPECT_EQ(first_arrival("ns", "9007199254740993"), 9'007'199'254'740'993);  // beyond 2^53
}

TEST(TraceJson, ReportsEveryErrorWithRequestAndField) {
  auto one = [](const std::string& fields) { return "{\"requests\": [{" + fields + "}]}"; };
  const std::string base = "\"arrival\": 0, \"prompt_len\": 20, \"output_len\": 2";
  const std::vector<ErrorCase> cases = {
      {"malformed", "{\n  \"requests\": [\n    {\"arrival\": 0,,}\n  ]\n}",
       "t.json:3: json: malformed JSON"},
      {"empty text", "", "t.json:1: json: malformed JSON"},
      {"non-finite number", "{\n\"requests\": [\n{\"arrival\": 1e999, \"prompt_len\": 1}]}",
       "t.json:3: json: number out of range"},
      {"top level array", "[]", "t.json: json: top level must be an object"},
      {"missing requests", "{}", "t.json: requests: missing field"},
      {"requests not array", "{\"requests\": {}}", "t.json: requests: must be an array"},
      {"no requests", "{\"requests\": []}", "t.json: requests: no requests"},
      {"unknown top-level field", "{\"reqests\": []}", "t.json: reqests: unknown field"},
      {"metadata not object", "{\"metadata\": 1, \"requests\": []}",
       "t.json: metadata: must be an object"},
      {"unknown metadata field", "{\"metadata\": {\"timeunit\": \"s\"}, \"requests\": []}",
       "t.json: metadata.timeunit: unknown field"},
      {"bad time unit", "{\"metadata\": {\"time_unit\": \"us\"}, \"requests\": []}",
       "t.json: metadata.time_unit: must be \"s\", \"ms\" or \"ns\", got 'us'"},
      {"metadata name not string", "{\"metadata\": {\"name\": 3}, \"requests\": []}",
       "t.json: metadata.name: must be a string"},
      {"request not object", "{\"requests\": [3]}", "t.json: requests[0]: must be an object"},
      {"unknown request field", one(base + ", \"promt_len\": 3"),
       "t.json: requests[0].promt_len: unknown field"},
      {"missing arrival", one("\"prompt_len\": 20, \"output_len\": 2"),
       "t.json: requests[0].arrival: missing field"},
      {"missing output_len", one("\"arrival\": 0, \"prompt_len\": 20"),
       "t.json: requests[0].output_len: missing field"},
      {"missing prompt", one("\"arrival\": 0, \"output_len\": 2"),
       "t.json: requests[0].prompt_len: missing field"},
      {"string arrival", one("\"arrival\": \"0\", \"prompt_len\": 20, \"output_len\": 2"),
       "t.json: requests[0].arrival: must be a number"},
      {"negative arrival", one("\"arrival\": -1, \"prompt_len\": 20, \"output_len\": 2"),
       "t.json: requests[0].arrival: must be >= 0"},
      {"negative prompt_len", one("\"arrival\": 0, \"prompt_len\": -4, \"output_len\": 2"),
       "t.json: requests[0].prompt_len: must be >= 1, got -4"},
      {"zero prompt_len", one("\"arrival\": 0, \"prompt_len\": 0, \"output_len\": 2"),
       "t.json: requests[0].prompt_len: must be >= 1"},
      {"fractional prompt_len", one("\"arrival\": 0, \"prompt_len\": 2.5, \"output_len\": 2"),
       "t.json: requests[0].prompt_len: must be an integer"},
      {"zero output_len", one("\"arrival\": 0, \"prompt_len\": 4, \"output_len\": 0"),
       "t.json: requests[0].output_len: must be >= 1, got 0"},
      {"negative output_len", one("\"arrival\": 0, \"prompt_len\": 4, \"output_len\": -2"),
       "t.json: requests[0].output_len: must be >= 1"},
      {"tokens disagree",
       one("\"arrival\": 0, \"prompt_len\": 4, \"prompt_tokens\": [1, 2, 3], \"output_len\": 1"),
       "t.json: requests[0].prompt_len: 4 disagrees with prompt_tokens, which has 3 tokens"},
      {"bad token", one("\"arrival\": 0, \"prompt_tokens\": [1, \"x\"], \"output_len\": 1"),
       "t.json: requests[0].prompt_tokens[1]: must be an integer"},
      {"negative token", one("\"arrival\": 0, \"prompt_tokens\": [-1], \"output_len\": 1"),
       "t.json: requests[0].prompt_tokens[0]: must be >= 0"},
      {"empty tokens", one("\"arrival\": 0, \"prompt_tokens\": [], \"output_len\": 1"),
       "t.json: requests[0].prompt_tokens: must not be empty"},
      {"tokens not array", one("\"arrival\": 0, \"prompt_tokens\": 5, \"output_len\": 1"),
       "t.json: requests[0].prompt_tokens: must be an array"},
      {"zero n", one(base + ", \"n\": 0"), "t.json: requests[0].n: must be >= 1, got 0"},
      {"huge n", one(base + ", \"n\": 3000000000"), "t.json: requests[0].n: must be <= 2147483647"},
      {"zero max_tokens", one(base + ", \"max_tokens\": 0"),
       "t.json: requests[0].max_tokens: must be >= 1"},
      {"string priority", one(base + ", \"priority\": \"high\""),
       "t.json: requests[0].priority: must be an integer"},
      {"id not string", one(base + ", \"id\": 5"), "t.json: requests[0].id: must be a string"},
      {"empty id", one(base + ", \"id\": \"\""), "t.json: requests[0].id: must not be empty"},
      {"ids without block size", one(base + ", \"prefix_hash_ids\": [1]"),
       "t.json: requests[0].hash_block_size: missing field (required with prefix_hash_ids)"},
      {"block size without ids", one(base + ", \"hash_block_size\": 16"),
       "t.json: requests[0].prefix_hash_ids: missing field (required with hash_block_size)"},
      {"zero block size", one(base + ", \"prefix_hash_ids\": [1], \"hash_block_size\": 0"),
       "t.json: requests[0].hash_block_size: must be >= 1"},
      {"too many hash ids", one(base + ", \"prefix_hash_ids\": [1, 2, 3], \"hash_block_size\": 16"),
       "t.json: requests[0].prefix_hash_ids: 3 ids but prompt_len 20 has only 2 blocks of 16 "
       "tokens"},
      {"float hash id", one(base + ", \"prefix_hash_ids\": [1.5], \"hash_block_size\": 16"),
       "t.json: requests[0].prefix_hash_ids[0]: must be a non-negative integer"},
      {"out of order",
       "{\"requests\": [{" + base +
           "}, {\"arrival\": 2, \"prompt_len\": 1, \"output_len\": 1}, "
           "{\"arrival\": 1, \"prompt_len\": 1, \"output_len\": 1}]}",
       "t.json: requests[2].arrival: out of time order: earlier than requests[1]"},
      {"duplicate ids",
       "{\"requests\": [{\"id\": \"a\", " + base + "}, {\"id\": \"b\", " + base +
           "}, {\"id\": \"a\", " + base + "}]}",
       "t.json: requests[2].id: duplicate id 'a' (also requests[0])"},
      {"explicit id equal to a default id",
       "{\"requests\": [{\"id\": \"1\", " + base + "}, {" + base + "}]}",
       "t.json: requests[1].id: duplicate id '1' (also requests[0])"},
  };
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.label);
    std::string message = error_of([&] { json_trace(c.input); });
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
  }
}

TEST(TraceJson, RoundTripsEveryField) {
  Trace t;
  t.source = "mem";
  TraceRequest a;
  a.id = "with \"quotes\" and \\ and \xC3\xA9";
  a.arrival_ns = 1;
  a.prompt_len = 3;
  a.prompt_tokens = {0, 2147483647, 5};
  a.output_len = 9;
  a.prefix_hash_ids = {18446744073709551615ull};
  a.hash_block_size = 2;
  a.n = 4;
  a.max_tokens = 100;
  a.priority = -7;
  TraceRequest b;
  b.id = "b";
  b.arrival_ns = 3'600'123'456'789;
  b.prompt_len = 70000;
  b.output_len = 1;
  t.requests = {a, b};
  TraceMetadata written{"name", "desc", "", "CC-BY 4.0", "ms"};
  TraceMetadata meta;
  Trace back = round_trip(t, &meta, written);
  expect_same_requests(t, back);
  EXPECT_EQ(meta.name, "name");
  EXPECT_EQ(meta.description, "desc");
  EXPECT_EQ(meta.source, "mem");  // empty source -> trace.source
  EXPECT_EQ(meta.license, "CC-BY 4.0");
  EXPECT_EQ(meta.time_unit, "s");
}

TEST(TraceJson, RoundTripsLongTracesInNanoseconds) {
  Trace t;
  TraceRequest r;
  r.id = "x";
  r.prompt_len = 1;
  r.output_len = 1;
  r.arrival_ns = 0;
  t.requests.push_back(r);
  r.id = "y";
  r.arrival_ns = std::numeric_limits<int64_t>::max();
  t.requests.push_back(r);
  TraceMetadata meta;
  expect_same_requests(t, round_trip(t, &meta));
  EXPECT_EQ(meta.time_unit, "ns");
}

RC_GTEST_PROP(TraceJson, WriteThenParseIsIdentity, ()) {
  const auto count = *rc::gen::inRange<size_t>(1, 20);
  Trace t;
  int64_t arrival = 0;
  // Arrivals up to ~11 days use seconds, larger ones nanoseconds: cover both.
  const int64_t max_gap = *rc::gen::element<int64_t>(1'000'000'000, 50'000'000'000'000'000);
  for (size_t i = 0; i < count; ++i) {
    TraceRequest r;
    // Printable ASCII (quotes and backslashes included); the writer replaces invalid UTF-8.
    r.id = "r" + std::to_string(i) +
           *rc::gen::container<std::string>(rc::gen::inRange<char>(' ', '~' + 1));
    arrival += *rc::gen::inRange<int64_t>(0, max_gap);
    r.arrival_ns = arrival;
    r.prompt_tokens = *rc::gen::container<std::vector<int32_t>>(rc::gen::inRange(0, 1 << 30));
    r.prompt_len = r.prompt_tokens.empty() ? *rc::gen::inRange<int64_t>(1, 1 << 20)
                                           : static_cast<int64_t>(r.prompt_tokens.size());
    r.output_len = *rc::gen::inRange<int64_t>(1, 1 << 20);
    r.hash_block_size = *rc::gen::inRange<int32_t>(1, 600);
    const int64_t blocks = (r.prompt_len + r.hash_block_size - 1) / r.hash_block_size;
    const auto ids = *rc::gen::inRange<int64_t>(0, std::min<int64_t>(blocks, 40) + 1);
    for (int64_t k = 0; k < ids; ++k) r.prefix_hash_ids.push_back(*rc::gen::arbitrary<uint64_t>());
    if (r.prefix_hash_ids.empty()) r.hash_block_size = 0;
    r.n = *rc::gen::inRange<int32_t>(1, 64);
    r.max_tokens = *rc::gen::element<int64_t>(-1, 1, 4096);
    r.priority = *rc::gen::arbitrary<int32_t>();
    t.requests.push_back(r);
  }
  std::ostringstream out;
  write_trace_json(t, out);
  std::istringstream in(out.str());
  Trace back = parse_trace_json(in, "prop.json");
  RC_ASSERT(back.requests.size() == t.requests.size());
  for (size_t i = 0; i < t.requests.size(); ++i) {
    RC_ASSERT(same_request(t.requests[i], back.requests[i]));
  }
}

// ---------------------------------------------------------------------------------------------
// read_trace_file and the shipped samples

TEST(ReadTraceFile, RejectsUnknownExtensionsAndMissingFiles) {
  std::string message = error_of([] { read_trace_file("/tmp/trace.txt"); });
  EXPECT_NE(message.find("/tmp/trace.txt: unknown trace format"), std::string::npos) << message;
  EXPECT_NE(message.find(".jsonl"), std::string::npos) << message;
  message = error_of([] { read_trace_file("/nonexistent/dir/x.json"); });
  EXPECT_NE(message.find("/nonexistent/dir/x.json: cannot open"), std::string::npos) << message;
}

TEST(ReadTraceFile, ChoosesTheFormatByExtension) {
  const std::string dir = testing::TempDir();
  const std::string path = dir + "/trace_io_test_upper.JSON";
  {
    std::ofstream f(path);
    f << R"({"requests": [{"arrival": 0, "prompt_len": 1, "output_len": 1}]})";
  }
  Trace t = read_trace_file(path);
  EXPECT_EQ(t.format, "json");
  EXPECT_EQ(t.source, path);
  std::filesystem::remove(path);
  Trace s = read_trace_file("synthetic:n=7,rate=2,seed=5");
  EXPECT_EQ(s.format, "synthetic");
  EXPECT_EQ(s.requests.size(), 7u);
}

TEST(SampleTraces, TinyJson) {
  Trace t = read_trace_file(kOurTraces + "tiny.json");
  ASSERT_EQ(t.requests.size(), 10u);
  int with_n2 = 0;
  int sharing = 0;
  for (const TraceRequest& r : t.requests) {
    EXPECT_FALSE(r.id.empty());
    with_n2 += r.n == 2;
    sharing += !r.prefix_hash_ids.empty();
  }
  EXPECT_EQ(with_n2, 1);
  EXPECT_GE(sharing, 2);
}

TEST(SampleTraces, MooncakeSampleIsTheStartOfTheTrace) {
  Trace sample = read_trace_file(kOurTraces + "mooncake-sample.jsonl");
  ASSERT_EQ(sample.requests.size(), 300u);
  SKIP_WITHOUT_SHARED_TRACES();
  Trace full = read_trace_file(kMooncake);
  full.requests.resize(300);
  expect_same_requests(sample, full);
}

TEST(SampleTraces, AzureConvSampleIsTheStartOfTheTrace) {
  TraceMetadata meta;
  std::ifstream in(kOurTraces + "azure-conv-sample.json");
  Trace sample = parse_trace_json(in, "azure-conv-sample.json", &meta);
  ASSERT_EQ(sample.requests.size(), 400u);
  EXPECT_NE(meta.license.find("CC-BY 4.0"), std::string::npos);
  EXPECT_NE(meta.license.find("Splitwise"), std::string::npos);
  SKIP_WITHOUT_SHARED_TRACES();
  Trace full = read_trace_file(kAzureConv);
  full.requests.resize(400);
  expect_same_requests(sample, full);
}

// ---------------------------------------------------------------------------------------------
// The real public traces

TEST(PublicTraces, AzureCode) {
  SKIP_WITHOUT_SHARED_TRACES();
  Trace t = read_trace_file(kAzureCode);
  // 8,819 data rows (the file has no final newline, so `wc -l` shows 8,819 lines with the header).
  ASSERT_EQ(t.requests.size(), 8819u);
  EXPECT_EQ(t.requests[0].arrival_ns, 0);  // 2023-11-16 18:17:03.9799600
  EXPECT_EQ(t.requests[0].prompt_len, 4808);
  EXPECT_EQ(t.requests[0].output_len, 10);
  EXPECT_EQ(t.requests[1].arrival_ns, 52'000'000);  // 18:17:04.0319600
  EXPECT_EQ(t.requests[1].prompt_len, 3180);
  EXPECT_EQ(t.requests[2].arrival_ns, 98'189'000);  // 18:17:04.0781490
  EXPECT_EQ(t.requests[2].output_len, 27);
  EXPECT_EQ(t.requests.back().arrival_ns, 3'435'948'056'000);  // 19:14:19.9280160
  EXPECT_EQ(t.requests.back().prompt_len, 549);
  EXPECT_EQ(t.requests.back().output_len, 173);
  EXPECT_EQ(t.requests.back().id, "8820");
}

TEST(PublicTraces, AzureConv) {
  SKIP_WITHOUT_SHARED_TRACES();
  Trace t = read_trace_file(kAzureConv);
  ASSERT_EQ(t.requests.size(), 19366u);    // data rows; see AzureCode
  EXPECT_EQ(t.requests[0].arrival_ns, 0);  // 2023-11-16 18:15:46.6805900
  EXPECT_EQ(t.requests[0].prompt_len, 374);
  EXPECT_EQ(t.requests[0].output_len, 44);
  EXPECT_EQ(t.requests[1].arrival_ns, 4'314'579'000);  // 18:15:50.9951690
  EXPECT_EQ(t.requests[2].arrival_ns, 4'541'877'000);  // 18:15:51.2224670
  EXPECT_EQ(t.requests[2].prompt_len, 879);
  EXPECT_EQ(t.requests[2].output_len, 55);
  EXPECT_EQ(t.requests.back().arrival_ns, 3'501'721'937'000);  // 19:14:08.4025270
  EXPECT_EQ(t.requests.back().prompt_len, 197);
  EXPECT_EQ(t.requests.back().output_len, 183);
  expect_same_requests(t, round_trip(t));
}

TEST(PublicTraces, Mooncake) {
  SKIP_WITHOUT_SHARED_TRACES();
  Trace t = read_trace_file(kMooncake);
  ASSERT_EQ(t.requests.size(), 12031u);
  const TraceRequest& first = t.requests[0];
  EXPECT_EQ(first.arrival_ns, 0);
  EXPECT_EQ(first.prompt_len, 6758);
  EXPECT_EQ(first.output_len, 500);
  EXPECT_EQ(first.hash_block_size, 512);
  std::vector<uint64_t> expected(14);
  for (size_t i = 0; i < expected.size(); ++i) expected[i] = i;
  EXPECT_EQ(first.prefix_hash_ids, expected);
  EXPECT_EQ(t.requests[1].prefix_hash_ids[0], 0u);  // shares the first block with request 0
  EXPECT_EQ(t.requests[1].prefix_hash_ids[1], 14u);
  EXPECT_EQ(t.requests.back().arrival_ns, 3'536'999'000'000);
  EXPECT_EQ(t.requests.back().prefix_hash_ids.back(), 182789u);
  for (const TraceRequest& r : t.requests) {  // every row names every block of its prompt
    ASSERT_EQ(static_cast<int64_t>(r.prefix_hash_ids.size()), (r.prompt_len + 511) / 512) << r.id;
  }
}

TEST(PublicTraces, ParseQuickly) {
  SKIP_WITHOUT_SHARED_TRACES();
  for (const std::string& path : {kAzureConv, kAzureCode, kMooncake}) {
    read_trace_file(path);  // warm the page cache
    auto start = std::chrono::steady_clock::now();
    Trace t = read_trace_file(path);
    double ms = millis_since(start);
    std::printf("[ timing ] %s: %zu requests in %.1f ms\n", path.c_str(), t.requests.size(), ms);
#ifdef NDEBUG
    EXPECT_LT(ms, 250.0) << path;  // generous: the target is well under 100 ms
#endif
  }
}

// ---------------------------------------------------------------------------------------------
// scale_arrivals

TEST(ScaleArrivals, DividesAndRoundsToNearest) {
  Trace t = csv(kHeader +
                "2023-11-16 18:15:46,1,1\n2023-11-16 18:15:46.000000003,1,1\n"
                "2023-11-16 18:15:50,1,1\n");
  scale_arrivals(t, 2.0);
  EXPECT_EQ(t.requests[1].arrival_ns, 2);  // 1.5 rounds away from zero
  EXPECT_EQ(t.requests[2].arrival_ns, 2'000'000'000);
  scale_arrivals(t, 0.25);
  EXPECT_EQ(t.requests[1].arrival_ns, 8);
  EXPECT_EQ(t.requests[2].arrival_ns, 8'000'000'000);
}

TEST(ScaleArrivals, RejectsBadScales) {
  Trace t = csv(kHeader + "2023-11-16 18:15:46,1,1\n2023-11-16 18:15:47,1,1\n");
  for (double bad : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    EXPECT_THROW(scale_arrivals(t, bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(scale_arrivals(t, 1e-12), std::out_of_range);
}

}  // namespace
}  // namespace llm
