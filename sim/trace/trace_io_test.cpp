// Tests for read_trace_file and scale_arrivals (sim/trace/trace_io.cpp): the choice of reader by
// path, the shipped samples in traces/, and the real public traces in ../shared/traces (skipped
// when absent). Each reader's own tests are in trace_azure_test.cpp, trace_mooncake_test.cpp and
// trace_json_test.cpp.
#include "sim/trace/trace_io.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/trace/testing/trace_test_util.h"

namespace llm {
namespace {

using testing::csv;
using testing::error_of;
using testing::expect_same_requests;
using testing::kHeader;
using testing::round_trip;

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

double millis_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
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
  const std::string dir = ::testing::TempDir();
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
