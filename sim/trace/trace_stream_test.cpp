// Tests for the streaming readers (sim/trace/trace_stream.h, request_stream.h): gzip input, the
// format found from an input's first line, standard input spooled to a file, out-of-order rows
// refused with their line (or passed on for --sort-arrivals), the time window, the stretch, and
// that a stream gives the same requests as the whole-trace reader.
#include "sim/trace/trace_stream.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/trace/load_scaling.h"
#include "sim/trace/synthetic.h"
#include "sim/trace/testing/trace_files.h"
#include "sim/trace/trace_io.h"

namespace llm {
namespace {

const std::string kStreamCsv =
    "TIMESTAMP,ContextTokens,GeneratedTokens\n"
    "2023-11-16 18:00:00.0,100,10\n"
    "2023-11-16 18:00:01.5,200,20\n"
    "2023-11-16 18:00:03.0,300,30\n";
const std::string kStreamJsonl =
    "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2]}\n"
    "{\"timestamp\": 1000, \"input_length\": 100, \"output_length\": 6, \"hash_ids\": [3]}\n";

using testing::TraceTempDir;

std::vector<TraceRequest> stream_all(RequestStream& s) { return collect_stream(s).requests; }

std::string stream_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const TraceError& e) {
    return e.what();
  }
  return "(no error)";
}

void expect_same_stream(const std::vector<TraceRequest>& a, const std::vector<TraceRequest>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].id, b[i].id);
    EXPECT_EQ(a[i].arrival_ns, b[i].arrival_ns);
    EXPECT_EQ(a[i].prompt_len, b[i].prompt_len);
    EXPECT_EQ(a[i].output_len, b[i].output_len);
    EXPECT_EQ(a[i].prefix_hash_ids, b[i].prefix_hash_ids);
    EXPECT_EQ(a[i].hash_block_size, b[i].hash_block_size);
    EXPECT_EQ(a[i].n, b[i].n);
  }
}

TEST(TraceStream, GzipAndPlainFilesGiveTheSameRequests) {
  TraceTempDir tmp("trace-stream-test");
  struct Case {
    std::string name, text;
  };
  for (const Case& c : {Case{"t.csv", kStreamCsv}, Case{"t.jsonl", kStreamJsonl}}) {
    SCOPED_TRACE(c.name);
    const std::string plain = tmp.write(c.name, c.text);
    const std::string gz = tmp.write(c.name + ".gz", c.text, true);
    const std::string upper = tmp.write(c.name + ".GZ", c.text, true);
    auto a = open_trace_stream(plain);
    auto b = open_trace_stream(gz);
    auto u = open_trace_stream(upper);
    const auto want = read_trace_file(plain).requests;
    expect_same_stream(stream_all(*a), want);
    expect_same_stream(stream_all(*b), want);
    expect_same_stream(stream_all(*u), want);
  }
}

TEST(TraceStream, ACorruptGzipFileIsNamed) {
  TraceTempDir tmp("trace-stream-test");
  const std::string gz = tmp.write("t.csv.gz", kStreamCsv, true);
  std::string bytes;
  {
    std::ifstream in(gz, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const std::string cut = tmp.write("cut.csv.gz", bytes.substr(0, bytes.size() / 2));
  const std::string msg = stream_error_of([&] { stream_all(*open_trace_stream(cut)); });
  EXPECT_NE(msg.find("cut.csv.gz: corrupt gzip data"), std::string::npos) << msg;
}

TEST(TraceStream, OutOfOrderRowsAreRefusedWithTheirLine) {
  const std::string csv =
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:00:02.0,100,10\n"
      "\n"
      "2023-11-16 18:00:01.0,200,20\n";
  const std::string jsonl =
      "{\"timestamp\": 5, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": []}\n"
      "{\"timestamp\": 4, \"input_length\": 10, \"output_length\": 5, \"hash_ids\": []}\n";
  struct Case {
    std::string text, ext, want;
  };
  TraceTempDir tmp("trace-stream-test");
  for (const Case& c :
       {Case{csv, ".csv",
             ":4: TIMESTAMP: out of time order: earlier than the previous row "
             "(line 2)"},
        Case{jsonl, ".jsonl", ":2: timestamp: out of time order: earlier than line 1"}}) {
    const std::string path = tmp.write("t" + c.ext, c.text);
    EXPECT_EQ(stream_error_of([&] { stream_all(*open_trace_stream(path)); }), path + c.want);
    // Passed on unchecked for --sort-arrivals.
    auto unchecked = open_trace_stream(path, false);
    EXPECT_EQ(stream_all(*unchecked).size(), 2u);
  }
}

TEST(TraceStream, TheFormatOfAnInputIsFoundFromItsFirstLine) {
  TraceTempDir tmp("trace-stream-test");
  struct Case {
    std::string text, want;
    bool gzip;
  };
  for (const Case& c :
       {Case{kStreamCsv, ".csv", false}, Case{kStreamJsonl, ".jsonl", false},
        Case{kStreamJsonl, ".jsonl", true}, Case{"\n{\"requests\": []}", ".json", false},
        Case{"{\n \"metadata\": {}}", ".json", false}}) {
    const std::string path = tmp.write("in", c.text, c.gzip);
    EXPECT_EQ(sniff_trace_format(path, "stdin"), c.want) << c.text;
  }
  const std::string empty = tmp.write("empty", "");
  EXPECT_EQ(stream_error_of([&] { sniff_trace_format(empty, "stdin"); }), "stdin: empty input");
}

TEST(TraceStream, StandardInputIsSpooledToAFile) {
  TraceTempDir tmp("trace-stream-test");
  std::istringstream in(kStreamCsv);
  const std::string path = spool_to_file(in, tmp.dir());
  auto s = open_trace_stream(path, true, sniff_trace_format(path, "stdin"), "stdin");
  EXPECT_EQ(stream_all(*s).size(), 3u);
  std::istringstream bad("TIMESTAMP,ContextTokens,GeneratedTokens\nnot a row\n");
  const std::string bad_path = spool_to_file(bad, tmp.dir());
  EXPECT_EQ(
      stream_error_of([&] { stream_all(*open_trace_stream(bad_path, true, ".csv", "stdin")); }),
      "stdin:2: row: expected 3 comma-separated fields, found 1");
}

TEST(TraceStream, UnknownFormatsAreNamed) {
  const std::string msg = stream_error_of([] { open_trace_stream("trace.txt.gz"); });
  EXPECT_NE(msg.find("trace.txt.gz: unknown trace format"), std::string::npos) << msg;
}

TEST(RequestStreams, TheWindowKeepsItsArrivalsCountedFromItsStart) {
  Trace t;
  for (int64_t at : {0, 10, 20, 30, 40}) {
    TraceRequest r;
    r.id = std::to_string(at);
    r.arrival_ns = at;
    t.requests.push_back(r);
  }
  struct Case {
    int64_t start, end;
    std::vector<int64_t> want;
  };
  for (const Case& c : {Case{0, -1, {0, 10, 20, 30, 40}}, Case{10, 30, {0, 10}},
                        Case{15, -1, {5, 15, 25}}, Case{50, -1, {}}, Case{0, 1, {0}}}) {
    WindowStream w(std::make_unique<TraceRequestStream>(t), c.start, c.end);
    std::vector<int64_t> got;
    while (const TraceRequest* r = w.next()) got.push_back(r->arrival_ns);
    EXPECT_EQ(got, c.want) << c.start << " " << c.end;
  }
}

TEST(RequestStreams, StretchMatchesScaleArrivals) {
  const Trace t = generate_synthetic(parse_synthetic_spec("synthetic:n=200,rate=7,seed=3"));
  for (double f : {0.3, 1.7, 4.0}) {
    Trace want = t;
    scale_arrivals(want, f);
    StretchStream s(std::make_unique<TraceRequestStream>(t), f);
    expect_same_stream(stream_all(s), want.requests);
  }
}

TEST(RequestStreams, FactsCountRequestsSequencesAndBursts) {
  Trace t;
  for (int64_t at : {5, 5, 7, 9, 9, 9}) {
    TraceRequest r;
    r.arrival_ns = at;
    r.n = at == 7 ? 3 : 1;
    t.requests.push_back(r);
  }
  TraceRequestStream s(t);
  const StreamFacts f = scan_stream(s);
  EXPECT_EQ(f.requests, 6);
  EXPECT_EQ(f.sequences, 8);
  EXPECT_EQ(f.first_arrival_ns, 5);
  EXPECT_EQ(f.last_arrival_ns, 9);
  EXPECT_EQ(f.instants, 3);
  EXPECT_EQ(f.largest, 3);
  EXPECT_EQ(f.in_bursts, 5);
}

TEST(RequestStreams, SyntheticStreamMatchesTheGenerator) {
  const SyntheticSpec spec = parse_synthetic_spec("synthetic:n=300,rate=5,prefix=0.5,seqs=2");
  SyntheticStream s(spec);
  expect_same_stream(stream_all(s), generate_synthetic(spec).requests);
}

}  // namespace
}  // namespace llm

namespace llm {
namespace {

TEST(RequestStreams, LoopMatchesScaleLoadsLoop) {
  const Trace t = generate_synthetic(parse_synthetic_spec("synthetic:n=50,rate=2,seed=9"));
  const int64_t span = t.requests.back().arrival_ns - t.requests.front().arrival_ns;
  const int64_t period = span + span / 49;  // 50 distinct instants
  for (int64_t until : {span / 2, 3 * span, 7 * period + 1}) {
    LoadScaling scaling;
    scaling.loop_to_ns = until;
    LoadScalingInfo info;
    const Trace want = scale_load(t, scaling, &info);
    LoopStream loop([&t] { return std::make_unique<TraceRequestStream>(t); },
                    t.requests.front().arrival_ns, period, until);
    const std::vector<TraceRequest> got = stream_all(loop);
    expect_same_stream(got, want.requests);
    for (size_t i = 0; i < got.size(); ++i)
      EXPECT_EQ(got[i].cache_salt, want.requests[i].cache_salt);
    EXPECT_EQ(loop.passes(), info.loops) << until;
  }
}

}  // namespace
}  // namespace llm
