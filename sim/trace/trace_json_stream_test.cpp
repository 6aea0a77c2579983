// Tests for our JSON format read a request at a time (open_json_trace_stream,
// sim/trace/json_trace_scan.h): the checks come in the order parsing the whole document gave them
// (a syntax error anywhere first, then the top level in key order, then each request), the top
// level is read as the document object has it (metadata after the requests, a repeated key, a
// byte order mark, escaped keys), element text with brackets inside strings, gzip, and repeated
// ids found however far apart.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "sim/trace/testing/trace_files.h"
#include "sim/trace/testing/trace_test_util.h"
#include "sim/trace/trace_io.h"
#include "sim/trace/trace_stream.h"

namespace llm {
namespace {

using testing::ErrorCase;
using testing::expect_errors;
using testing::json_trace;

const std::string kBase = "\"arrival\": 0, \"prompt_len\": 20, \"output_len\": 2";

std::string req(const std::string& fields) { return "{" + fields + "}"; }

TEST(TraceJsonStream, ChecksComeInTheWholeDocumentsOrder) {
  const std::vector<ErrorCase> cases = {
      {"a bad request before a syntax error: the syntax error",
       "{\"requests\": [\n" + req("\"arrival\": -1, \"prompt_len\": 1, \"output_len\": 1") + ",\n" +
           req(kBase) + ",,\n]}",
       "t.json:3: json: malformed JSON"},
      {"an overflow after a bad request: the overflow, with its line",
       "{\"requests\": [" + req("\"prompt_len\": 1") + ",\n\n" + req("\"arrival\": 2e400") + "]}",
       "t.json:3: json: number out of range"},
      {"an unknown key after the requests comes before their errors",
       "{\"requests\": [" + req("\"arrival\": -1") + "], \"zzz\": 1}",
       "t.json: zzz: unknown field"},
      {"bad metadata after the requests comes before their errors",
       "{\"requests\": [" + req("\"arrival\": -1") + "], \"metadata\": {\"time_unit\": \"h\"}}",
       "t.json: metadata.time_unit: must be"},
      {"an unknown key sorted before metadata comes first",
       "{\"metadata\": 5, \"aaa\": 1, \"requests\": [" + req(kBase) + "]}",
       "t.json: aaa: unknown field"},
      {"the last requests key counts (not an array)",
       "{\"requests\": [" + req(kBase) + "], \"requests\": {\"a\": [1, 2]}}",
       "t.json: requests: must be an array, got '{\"a\":[1,2]}'"},
      {"the last requests key counts (empty)",
       "{\"requests\": [" + req(kBase) + "], \"requests\": []}", "t.json: requests: no requests"},
      {"the second request of the last requests key",
       "{\"requests\": [1], \"requests\": [" + req(kBase) + ", " + req("\"arrival\": 0") + "]}",
       "t.json: requests[1].output_len: missing field"},
      {"a repeated id far from its first use",
       [] {
         std::string text = "{\"requests\": [";
         for (int i = 0; i < 3000; ++i) {
           text += (i ? ", " : "") + req("\"id\": \"r" + std::to_string(i % 2999) + "\", " + kBase);
         }
         return text + "]}";
       }(),
       "t.json: requests[2999].id: duplicate id 'r0' (also requests[0])"},
      {"an explicit numeric id after its default",
       "{\"requests\": [" + req(kBase) + ", " + req(kBase) + ", " + req("\"id\": \"0\", " + kBase) +
           "]}",
       "t.json: requests[2].id: duplicate id '0' (also requests[0])"},
      {"a default id equal to an earlier explicit one",
       "{\"requests\": [" + req("\"id\": \"2\", " + kBase) + ", " + req(kBase) + ", " + req(kBase) +
           "]}",
       "t.json: requests[2].id: duplicate id '2' (also requests[0])"},
      {"the top level cut short", "{\"requests\": [" + req(kBase),
       "t.json:1: json: malformed JSON"},
  };
  expect_errors(cases, [](const std::string& input) { json_trace(input); });
}

TEST(TraceJsonStream, ReadsTheTopLevelAsTheDocumentObjectHasIt) {
  // Metadata after the requests still sets their unit; a byte order mark; an escaped key; text
  // with brackets, quotes and escapes inside strings; nested values; white space of every kind.
  const std::string text =
      "\xEF\xBB\xBF {\r\n\t\"requ\\u0065sts\" : [ {\"id\": \"a]}\\\"[{\", \"arrival\": 1500,"
      " \"prompt_tokens\": [1, [2][0] ]} ]}";
  EXPECT_NE(testing::error_of([&] { json_trace(text); }).find("malformed JSON"), std::string::npos)
      << "not JSON: the nested array in prompt_tokens";
  const std::string good =
      "\xEF\xBB\xBF {\r\n\t\"requ\\u0065sts\" : [ {\"id\": \"a]}\\\"[{\", \"arrival\": 1500,"
      " \"prompt_tokens\": [1, 2], \"output_len\": 3, \"cache_salt\": \"x,}\"} ,\n"
      "{\"arrival\":2000,\"prompt_len\":7,\"output_len\":1}\n ] ,\n"
      " \"metadata\": {\"time_unit\": \"ms\", \"name\": \"n\"} }\n";
  TraceMetadata meta;
  const Trace t = json_trace(good, &meta);
  ASSERT_EQ(t.requests.size(), 2u);
  EXPECT_EQ(t.requests[0].id, "a]}\"[{");
  EXPECT_EQ(t.requests[0].arrival_ns, 1'500'000'000);
  EXPECT_EQ(t.requests[0].prompt_tokens, (std::vector<int32_t>{1, 2}));
  EXPECT_EQ(t.requests[0].cache_salt, "x,}");
  EXPECT_EQ(t.requests[1].id, "1");
  EXPECT_EQ(t.requests[1].arrival_ns, 2'000'000'000);
  EXPECT_EQ(meta.time_unit, "ms");
  EXPECT_EQ(meta.name, "n");
}

TEST(TraceJsonStream, AFileStreamsPlainOrGzippedAsTheWholeReaderReadsIt) {
  testing::TraceTempDir tmp("trace-json-stream-test");
  std::string text = "{\"metadata\": {\"name\": \"x\"}, \"requests\": [\n";
  for (int i = 0; i < 500; ++i) {
    text += (i ? ",\n" : "") + req("\"arrival\": " + std::to_string(i * 0.25) +
                                   ", \"prompt_len\": " + std::to_string(10 + i) +
                                   ", \"output_len\": 3, \"prefix_hash_ids\": [" +
                                   std::to_string(i % 7) + "], \"hash_block_size\": 16");
  }
  text += "\n]}\n";
  const Trace want = json_trace(text);
  for (bool gzip : {false, true}) {
    const std::string path = tmp.write(gzip ? "t.json.gz" : "t.json", text, gzip);
    std::unique_ptr<RequestStream> s = open_trace_stream(path);
    Trace got = collect_stream(*s);
    testing::expect_same_requests(got, want);
  }
  const std::string bad = tmp.write("bad.json.gz", text.substr(0, text.size() / 2), true);
  const std::string message = testing::error_of([&] { open_trace_stream(bad); });
  EXPECT_EQ(message.rfind(bad + ":", 0), 0u) << message;
  EXPECT_NE(message.find(": json: malformed JSON"), std::string::npos) << message;
}

}  // namespace
}  // namespace llm
