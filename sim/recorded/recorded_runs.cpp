#include "sim/recorded/recorded_runs.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "sim/recorded/blis_trainval_reader.h"
#include "sim/recorded/inference_perf_reader.h"
#include "sim/recorded/vllm_bench_reader.h"
#include "sim/recorded/vllm_request_log_reader.h"

namespace llm {
namespace fs = std::filesystem;
namespace {

void collect_runs(const fs::path& dir, const RecordedOptions& options,
                  std::vector<RecordedRun>& runs, std::set<std::string>& names, int depth) {
  auto add = [&](RecordedRun run) {
    if (names.insert(run.name).second) runs.push_back(std::move(run));
  };
  const std::string d = dir.string();
  if (is_blis_trainval(d)) {
    for (RecordedRun& run : read_blis_trainval(d, options)) add(std::move(run));
  }
  if (is_inference_perf_run(d)) add(read_inference_perf_run(d, options));
  if (is_vllm_request_log(d)) add(read_vllm_request_log(d, options));
  if (depth >= 6) return;
  std::vector<fs::path> children;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.is_directory(ec)) children.push_back(e.path());
  }
  std::sort(children.begin(), children.end());
  for (const fs::path& child : children) collect_runs(child, options, runs, names, depth + 1);
}

}  // namespace

std::vector<RecordedRun> read_recorded_runs(const std::string& path,
                                            const RecordedOptions& options) {
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) {
    if (!is_vllm_bench_result(path)) {
      throw TraceError(path +
                       ": not a vllm bench serve result (a JSON object with input_lens, "
                       "ttfts, latencies); give a run folder or such a file");
    }
    return {read_vllm_bench_result(path, options)};
  }
  if (!fs::is_directory(path, ec)) throw TraceError(path + ": no such file or folder");
  std::vector<RecordedRun> runs;
  std::set<std::string> names;
  collect_runs(fs::path(path), options, runs, names, 0);
  if (runs.empty()) {
    throw TraceError(path +
                     ": no recorded run found (expected an inference-perf run: profile.yaml and "
                     "exp-config.yaml; BLIS trainval: experiments.csv, measured.csv and "
                     "trainval-exact-config.json; a vLLM per-request log: vllm/requests.jsonl, "
                     "vllm/meta.json and trace.csv; or a vllm bench serve JSON file)");
  }
  return runs;
}

}  // namespace llm
