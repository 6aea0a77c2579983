// Tests for our JSON trace format (sim/trace/trace_json.cpp): every field and default, time units,
// every error case, and write-then-read round trips (examples and a property).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "sim/trace/testing/trace_test_util.h"
#include "sim/trace/trace_io.h"

namespace llm {
namespace {

using testing::ErrorCase;
using testing::expect_errors;
using testing::expect_same_requests;
using testing::json_trace;
using testing::round_trip;
using testing::same_request;

TEST(TraceJson, ParsesAllFieldsAndDefaults) {
  TraceMetadata meta;
  Trace t = json_trace(R"({
    "metadata": {"name": "x", "description": "d", "source": "s", "license": "l", "time_unit": "ms"},
    "requests": [
      {"arrival": 1.5, "prompt_len": 3, "output_len": 2},
      {"id": "b", "arrival": 2, "prompt_tokens": [5, 6, 7], "prompt_len": 3, "output_len": 4,
       "prefix_hash_ids": [9, 10], "hash_block_size": 2, "n": 3, "max_tokens": 8, "priority": -1,
       "cache_salt": "tenant-7"},
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
  EXPECT_EQ(a.cache_salt, "");
  EXPECT_EQ(a.hash_block_size, 0);
  const TraceRequest& b = t.requests[1];
  EXPECT_EQ(b.arrival_ns, 2'000'000);
  EXPECT_EQ(b.prompt_tokens, (std::vector<int32_t>{5, 6, 7}));
  EXPECT_EQ(b.prefix_hash_ids, (std::vector<uint64_t>{9, 10}));
  EXPECT_EQ(b.hash_block_size, 2);
  EXPECT_EQ(b.n, 3);
  EXPECT_EQ(b.max_tokens, 8);
  EXPECT_EQ(b.priority, -1);
  EXPECT_EQ(b.cache_salt, "tenant-7");
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
      {"number cache_salt", one(base + ", \"cache_salt\": 5"),
       "t.json: requests[0].cache_salt: must be a string"},
      {"empty cache_salt", one(base + ", \"cache_salt\": \"\""),
       "t.json: requests[0].cache_salt: must not be empty"},
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
  expect_errors(cases, [](const std::string& input) { json_trace(input); });
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
  a.cache_salt = "salt \"with\" quotes";
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
    r.cache_salt = *rc::gen::container<std::string>(rc::gen::inRange<char>(' ', '~' + 1));
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

}  // namespace
}  // namespace llm
