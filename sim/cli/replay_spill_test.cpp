// `llmsim replay --samples-in-memory N`: a replay whose per-sequence samples spill to disk in
// sorted runs (a bound of a few sequences) writes the same stdout, summary.json, requests.jsonl
// and HTML report, byte for byte, as one that holds them all in memory; a bad bound is named, and
// a scratch folder that cannot be written is a clear error.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/replay_command.h"
#include "sim/trace/testing/trace_files.h"

namespace llm {
namespace {

const std::string kSpillTrace = std::string(LLM_SOURCE_DIR) + "/traces/azure-conv-sample.json";

std::string read_output(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

int run_spill_replay(std::vector<std::string> args, std::string* out, std::string* err) {
  args.push_back("--no-progress");
  std::ostringstream o, e;
  const int code = run_replay_command(args, o, e);
  *out = o.str();
  *err = e.str();
  return code;
}

TEST(ReplaySpill, SpilledSamplesGiveTheSameOutputsByteForByte) {
  testing::TraceTempDir tmp("replay-spill");
  // Two engines (each with its own report), goodput targets (the outcomes), the client view (the
  // API server), any percentile, the report's CDFs: everything read from the samples.
  const std::vector<std::string> common = {kSpillTrace,
                                           "--data-parallel-size",
                                           "2",
                                           "--arrival-rate-scale",
                                           "4",
                                           "--slo",
                                           "ttft=2s,tpot=50ms,attainment>=0.5,ttft_p75=1s",
                                           "--metric-percentiles",
                                           "25,50,75,99.9"};
  std::string out_mem, out_disk, err;
  std::vector<std::string> in_memory = common;
  in_memory.insert(in_memory.end(),
                   {"--output-dir", tmp.dir() + "/mem", "--report", tmp.dir() + "/mem.html"});
  ASSERT_EQ(run_spill_replay(in_memory, &out_mem, &err), 0) << err;
  std::vector<std::string> spilled = common;
  spilled.insert(spilled.end(), {"--output-dir", tmp.dir() + "/disk", "--report",
                                 tmp.dir() + "/disk.html", "--samples-in-memory", "3"});
  ASSERT_EQ(run_spill_replay(spilled, &out_disk, &err), 0) << err;
  EXPECT_NE(out_mem.find("Goodput"), std::string::npos) << out_mem;
  EXPECT_EQ(out_disk, out_mem);
  for (const char* file : {"summary.json", "requests.jsonl"}) {
    SCOPED_TRACE(file);
    const std::string mem = read_output(tmp.dir() + "/mem/" + file);
    ASSERT_FALSE(mem.empty());
    EXPECT_EQ(read_output(tmp.dir() + "/disk/" + file), mem);
  }
  // The report's header shows the command line, which differs by the flag and the paths.
  auto without_command = [](std::string html, const std::string& flags) {
    for (size_t at; (at = html.find(flags)) != std::string::npos;) html.erase(at, flags.size());
    return html;
  };
  const std::string mem_html =
      without_command(read_output(tmp.dir() + "/mem.html"), tmp.dir() + "/mem");
  const std::string disk_html = without_command(
      without_command(read_output(tmp.dir() + "/disk.html"), " --samples-in-memory 3"),
      tmp.dir() + "/disk");
  ASSERT_FALSE(mem_html.empty());
  EXPECT_TRUE(disk_html == mem_html) << "the HTML reports differ";
}

TEST(ReplaySpill, ABoundBelowOneIsNamed) {
  std::string out, err;
  EXPECT_EQ(run_spill_replay({kSpillTrace, "--samples-in-memory", "0"}, &out, &err), 2);
  EXPECT_NE(err.find("--samples-in-memory"), std::string::npos) << err;
}

TEST(ReplaySpill, AScratchFolderThatCannotBeWrittenIsAClearError) {
  const char* old = getenv("TMPDIR");
  const std::string saved = old ? old : "";
  setenv("TMPDIR", "/nonexistent-llmsim-tmp", 1);
  std::string out, err;
  const int code =
      run_spill_replay({kSpillTrace, "--quiet", "--samples-in-memory", "2"}, &out, &err);
  if (old) {
    setenv("TMPDIR", saved.c_str(), 1);
  } else {
    unsetenv("TMPDIR");
  }
  EXPECT_EQ(code, 1);
  EXPECT_NE(err.find("/nonexistent-llmsim-tmp"), std::string::npos) << err;
  EXPECT_NE(err.find("TMPDIR"), std::string::npos) << err;
}

}  // namespace
}  // namespace llm
