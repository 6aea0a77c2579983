// `llmsim replay` on long-trace inputs: gzipped traces, standard input ("-"), --start/--end,
// out-of-order traces refused naming the line or sorted with --sort-arrivals (in memory or in
// sorted runs on disk: --sort-in-memory), our JSON format streamed (plain, gzipped, standard
// input; its errors), --load-scaling sample streamed, synthetic-week; each gives the same
// requests.jsonl as the plain equivalent, byte for byte.
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/replay_command.h"
#include "sim/trace/testing/trace_files.h"

namespace llm {
namespace {

const std::string kMooncake = std::string(LLM_SOURCE_DIR) + "/traces/mooncake-sample.jsonl";
const std::string kAzureJson = std::string(LLM_SOURCE_DIR) + "/traces/azure-conv-sample.json";

class ReplayStreamCli : public ::testing::Test {
 protected:
  int run(std::vector<std::string> args, std::string* out, std::string* err) {
    args.push_back("--no-progress");
    std::ostringstream o, e;
    const int code = run_replay_command(args, o, e);
    *out = o.str();
    *err = e.str();
    return code;
  }
  // requests.jsonl of a replay with these arguments ("" and the error when it fails).
  std::string requests_of(std::vector<std::string> args, const std::string& name) {
    const std::string out_dir = tmp_.dir() + "/" + name;
    args.insert(args.end(), {"--quiet", "--output-dir", out_dir});
    std::string out, err;
    if (run(args, &out, &err) != 0) {
      ADD_FAILURE() << err;
      return "";
    }
    std::ifstream in(out_dir + "/requests.jsonl");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string write(const std::string& name, const std::string& text, bool gzip) {
    return tmp_.write(name, text, gzip);
  }
  std::string mooncake_text() { return text_of(kMooncake); }
  static std::string text_of(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  testing::TraceTempDir tmp_{"replay-stream-cli"};
};

TEST_F(ReplayStreamCli, GzipAndStandardInputGiveTheSameRequests) {
  const std::string plain = requests_of({kMooncake}, "plain");
  ASSERT_FALSE(plain.empty());
  const std::string gz = write("t.jsonl.gz", mooncake_text(), true);
  EXPECT_EQ(requests_of({gz}, "gz"), plain);
  std::istringstream in(mooncake_text());
  std::streambuf* old = std::cin.rdbuf(in.rdbuf());
  const std::string from_stdin = requests_of({"-"}, "stdin");
  std::cin.rdbuf(old);
  EXPECT_EQ(from_stdin, plain);
}

TEST_F(ReplayStreamCli, TheWindowReplaysOnlyItsRequests) {
  // The whole trace as a window, and a window in the middle: its first request's line starts at 0.
  EXPECT_EQ(requests_of({kMooncake, "--start", "0", "--end", "100h"}, "all"),
            requests_of({kMooncake}, "plain"));
  const std::string part = requests_of({kMooncake, "--start", "10s", "--end", "20s"}, "part");
  const std::string whole = requests_of({kMooncake}, "whole2");
  const size_t lines_part = static_cast<size_t>(std::count(part.begin(), part.end(), '\n'));
  const size_t lines_whole = static_cast<size_t>(std::count(whole.begin(), whole.end(), '\n'));
  EXPECT_GT(lines_part, 0u);
  EXPECT_LT(lines_part, lines_whole);
  std::string out, err;
  EXPECT_EQ(run({kMooncake, "--start", "20s", "--end", "10s"}, &out, &err), 2);
  EXPECT_NE(err.find("--end: must be after --start"), std::string::npos) << err;
  EXPECT_EQ(run({kMooncake, "--start", "soon"}, &out, &err), 2);
  EXPECT_NE(err.find("--start: expected a duration"), std::string::npos) << err;
}

TEST_F(ReplayStreamCli, OutOfOrderTracesAreRefusedNamingTheLineOrSorted) {
  const std::string unordered =
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:00:02.0,100,10\n"
      "2023-11-16 18:00:01.0,200,20\n"
      "2023-11-16 18:00:03.0,300,30\n";
  const std::string sorted =
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:00:01.0,200,20\n"
      "2023-11-16 18:00:02.0,100,10\n"
      "2023-11-16 18:00:03.0,300,30\n";
  for (bool gzip : {false, true}) {
    const std::string path = write(gzip ? "u.csv.gz" : "u.csv", unordered, gzip);
    std::string out, err;
    EXPECT_EQ(run({path, "--quiet"}, &out, &err), 2);
    EXPECT_NE(err.find(path + ":3: TIMESTAMP: out of time order: earlier than the previous row "
                              "(line 2)"),
              std::string::npos)
        << err;
    const std::string got = requests_of({path, "--sort-arrivals"}, gzip ? "sgz" : "s");
    // The same requests and times as the sorted file (the ids are each row's line).
    const std::string want = requests_of({write("sorted.csv", sorted, false)}, "sorted");
    EXPECT_EQ(got.size(), want.size());
    EXPECT_EQ(std::count(got.begin(), got.end(), '\n'), 3);
  }
}

TEST_F(ReplayStreamCli, TheJsonFormatStreamsPlainGzippedAndFromStandardInput) {
  const std::string plain = requests_of({kAzureJson}, "json");
  ASSERT_FALSE(plain.empty());
  EXPECT_EQ(requests_of({write("a.json.gz", text_of(kAzureJson), true)}, "jsongz"), plain);
  std::istringstream in(text_of(kAzureJson));
  std::streambuf* old = std::cin.rdbuf(in.rdbuf());
  const std::string from_stdin = requests_of({"-"}, "jsonstdin");
  std::cin.rdbuf(old);
  EXPECT_EQ(from_stdin, plain);
}

TEST_F(ReplayStreamCli, JsonErrorsNameTheLineOrTheRequestAndExit2) {
  const std::string ok = "{\"arrival\": 0, \"prompt_len\": 5, \"output_len\": 2}";
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {"{\"requests\": [\n" + ok + ",\n" + ok + ",,\n]}", "t.json:3: json: malformed JSON"},
      {"{\"requests\": [" + ok + ", {\"arrival\": 1, \"prompt_len\": 5}]}",
       "t.json: requests[1].output_len: missing field"},
      {"{\"requests\": [" + ok +
           ", {\"id\": \"0\", \"arrival\": 1, \"prompt_len\": 5, "
           "\"output_len\": 1}]}",
       "t.json: requests[1].id: duplicate id '0' (also requests[0])"},
  };
  for (const Case& c : cases) {
    const std::string path = write("t.json", c.text, false);
    std::string out, err;
    EXPECT_EQ(run({path, "--quiet"}, &out, &err), 2);
    EXPECT_NE(err.find(path + c.expected.substr(6)), std::string::npos) << err;
  }
}

TEST_F(ReplayStreamCli, SortingInRunsOnDiskGivesTheInMemorySort) {
  // 60 rows out of order, many on the same second (ties keep the file's order).
  std::string csv = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  for (int i = 0; i < 60; ++i) {
    const int second = (i * 37) % 13;
    csv += "2023-11-16 18:00:" + std::string(second < 10 ? "0" : "") + std::to_string(second) +
           ".0," + std::to_string(100 + i) + "," + std::to_string(5 + i % 7) + "\n";
  }
  const std::string path = write("many.csv", csv, false);
  const std::string in_memory = requests_of({path, "--sort-arrivals"}, "mem");
  ASSERT_EQ(std::count(in_memory.begin(), in_memory.end(), '\n'), 60);
  EXPECT_EQ(requests_of({path, "--sort-arrivals", "--sort-in-memory", "1"}, "disk1"), in_memory);
  EXPECT_EQ(
      requests_of({path, "--sort-arrivals", "--sort-in-memory", "7", "--start", "2s"}, "disk7"),
      requests_of({path, "--sort-arrivals", "--start", "2s"}, "mem7"));
  std::string out, err;
  EXPECT_EQ(run({path, "--sort-arrivals", "--sort-in-memory", "0"}, &out, &err), 2);
  EXPECT_NE(err.find("--sort-in-memory"), std::string::npos) << err;
}

TEST_F(ReplayStreamCli, SampledLoadIsTheSameFromEveryInput) {
  // Streamed per copy from the file, the gzipped file and a sorted copy of it on disk.
  const std::vector<std::string> flags = {
      "--arrival-rate-scale", "2.5", "--load-scaling", "sample", "--seed", "3"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), flags.begin(), flags.end());
    return args;
  };
  const std::string plain = requests_of(with({kMooncake}), "sample");
  ASSERT_FALSE(plain.empty());
  EXPECT_EQ(requests_of(with({write("m.jsonl.gz", mooncake_text(), true)}), "samplegz"), plain);
  EXPECT_EQ(requests_of(with({kMooncake, "--sort-arrivals", "--sort-in-memory", "50"}), "samples"),
            plain);
}

TEST_F(ReplayStreamCli, SyntheticWeekReplays) {
  std::string out, err;
  ASSERT_EQ(run({"synthetic-week:days=0.01,rate=2"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("TTFT"), std::string::npos) << out;
  EXPECT_EQ(run({"synthetic-week:rate=-1"}, &out, &err), 2);
  EXPECT_NE(err.find("synthetic-week: rate: expected requests per second > 0"), std::string::npos)
      << err;
}

}  // namespace
}  // namespace llm
