// `llmsim capacity --shard I/N` (a shard's engine searches, recorded) and `llmsim capacity-merge`
// (the records joined into the unsharded run's output, byte for byte).
#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/flag_set.h"
#include "core/flag_values.h"
#include "core/pending_file.h"
#include "sim/capacity/capacity_result.h"
#include "sim/cli/capacity_command.h"
#include "sim/cli/capacity_run.h"
#include "sim/cli/replay_command.h"
#include "sim/cli/sweep_command.h"
#include "sim/sweep/sweep_shard.h"
#include "sim/trace/trace_io.h"

namespace llm {

// --- Sharded capacity searches: shard I/N searches candidate k when k mod N == I ---------------

namespace {

constexpr const char* kCapacityShardFormat = "llmsim-capacity-shard/1";

std::string capacity_record_name(const SweepShard& shard) {
  return "capacity-" + shard_record_name(shard);
}

// The arguments that make two command lines the same capacity question.
std::vector<std::string> capacity_identity_args(const std::vector<std::string>& args) {
  return without_flags(args, {"--shard", "--out", "--jobs", "--report", "--result-json"});
}

}  // namespace

// --shard: the engine searches of the shard's candidates; DIR/capacity-shard-I-of-N.json records
// each one's answer (its fewest engines, or none).
int run_capacity_shard(const CapacityOptions& o, const std::vector<std::string>& args,
                       const Trace& trace, std::ostream& out) {
  const std::vector<Candidate> candidates = make_candidates(o);
  nlohmann::ordered_json doc;
  doc["format"] = kCapacityShardFormat;
  doc["shard"] = o.shard.index;
  doc["shards"] = o.shard.count;
  doc["args"] = args;
  doc["candidates"] = candidates.size();
  doc["answers"] = nlohmann::ordered_json::array();
  for (size_t k : shard_points(candidates.size(), o.shard)) {
    const CapacitySearch search = search_engines(trace, o, candidates[k]);
    const auto& answer = search.outcome.first_true;
    doc["answers"].push_back(
        {{"index", k},
         {"engines", answer ? nlohmann::ordered_json(*answer) : nlohmann::ordered_json(nullptr)}});
    out << "capacity shard " << shard_label(o.shard) << ": "
        << describe_settings(candidates[k].settings) << ": "
        << (answer ? std::to_string(*answer) + " engine(s)" : "none") << "\n";
  }
  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec) throw UsageError("--out: cannot create " + o.out_dir + ": " + ec.message());
  PendingFile file("--out", std::filesystem::path(o.out_dir) / capacity_record_name(o.shard));
  file.stream() << doc.dump(1) << "\n";
  file.commit();
  return 0;
}

namespace {

struct CapacityRecord {
  std::filesystem::path file;
  SweepShard shard;
  std::vector<std::string> args;
  size_t candidates = 0;
  std::map<size_t, std::optional<int64_t>> answers;
};

// A failure of the shards' records: nothing is written, exit code 1.
struct CapacityMergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

CapacityRecord read_capacity_record(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  try {
    const nlohmann::json doc = nlohmann::json::parse(text.str());
    if (!doc.is_object() || doc.value("format", "") != kCapacityShardFormat) {
      throw std::invalid_argument("not a capacity shard record");
    }
    CapacityRecord r;
    r.file = file;
    r.shard = {doc.at("shard").get<int>(), doc.at("shards").get<int>()};
    r.args = doc.at("args").get<std::vector<std::string>>();
    r.candidates = doc.at("candidates").get<size_t>();
    for (const auto& a : doc.at("answers")) {
      const auto& e = a.at("engines");
      r.answers[a.at("index").get<size_t>()] =
          e.is_null() ? std::nullopt : std::optional<int64_t>(e.get<int64_t>());
    }
    if (file.filename() != capacity_record_name(r.shard)) {
      throw std::invalid_argument("records shard " + shard_label(r.shard));
    }
    return r;
  } catch (const std::exception& e) {
    throw CapacityMergeError(file.string() + ": " + e.what());
  }
}

// One record per shard, of one question; every shard there.
std::vector<CapacityRecord> capacity_records(const std::vector<std::string>& dirs, int expected) {
  static const std::regex kName(R"(capacity-shard-([0-9]+)-of-([0-9]+)\.json)");
  std::vector<CapacityRecord> found;
  for (const std::string& dir : dirs) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (std::regex_match(e.path().filename().string(), kName)) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) found.push_back(read_capacity_record(f));
  }
  std::string where;
  for (const std::string& d : dirs) where += (where.empty() ? "" : ", ") + d;
  if (found.empty() && expected == 0) {
    throw CapacityMergeError("no capacity shard records (capacity-shard-I-of-N.json) in " + where);
  }
  const int count = expected > 0 ? expected : found.front().shard.count;
  std::vector<std::optional<CapacityRecord>> by_index(static_cast<size_t>(count));
  const std::vector<std::string> identity =
      found.empty() ? std::vector<std::string>{} : capacity_identity_args(found.front().args);
  const std::string first = found.empty() ? "" : found.front().file.string();
  for (CapacityRecord& r : found) {
    if (r.shard.count != count) {
      throw CapacityMergeError(r.file.string() + " is shard " + shard_label(r.shard) +
                               " of another split (" + std::to_string(count) + " shards)");
    }
    if (capacity_identity_args(r.args) != identity) {
      throw CapacityMergeError(r.file.string() + ": not the same capacity question as " + first);
    }
    auto& slot = by_index[static_cast<size_t>(r.shard.index)];
    if (slot) {
      throw CapacityMergeError("shard " + shard_label(r.shard) + " is there twice: " +
                               slot->file.string() + " and " + r.file.string());
    }
    slot = std::move(r);
  }
  std::string missing;
  for (int i = 0; i < count; ++i) {
    if (!by_index[static_cast<size_t>(i)]) {
      missing += (missing.empty() ? "" : ", ") + shard_label({i, count});
    }
  }
  if (!missing.empty()) {
    throw CapacityMergeError("missing shard(s) " + missing + " (no capacity-shard-I-of-" +
                             std::to_string(count) + ".json in " + where +
                             "): failed, cancelled or not run");
  }
  std::vector<CapacityRecord> records;
  for (auto& r : by_index) records.push_back(std::move(*r));
  return records;
}

}  // namespace

std::string capacity_merge_usage() {
  return R"(usage: llmsim capacity-merge DIR... [--shards N] [--result-json FILE] [--report FILE] [--jobs N]

Joins the shards of one capacity question (llmsim capacity ... --shard I/N --out DIR: shard I
searches the fewest engines of the --search candidates k with k mod N == I) and prints and writes
what the unsharded llmsim capacity prints and writes, byte for byte: the answer's engine search
is replayed again here (the same replays, so the same figures), then one engine's arrival-rate
search and the what-ifs. A shard missing, found twice or of another question is named and
nothing is written (exit code 1). See docs/cluster.md.
)";
}

int run_capacity_merge_command(const std::vector<std::string>& args, std::ostream& out,
                               std::ostream& err) {
  if (wants_help(args)) {
    out << capacity_merge_usage();
    return 0;
  }
  std::vector<std::string> dirs;
  std::string result_json, report;
  int shards = 0;
  int jobs = 0;
  try {
    FlagSet flags("llmsim capacity-merge");
    flags.positional([&](const std::string& d) { dirs.push_back(d); })
        .nonempty({"--result-json"}, result_json)
        .nonempty({"--report"}, report)
        .integer({"--shards"}, shards, 1, 100000)
        .integer({"--jobs"}, jobs, 1, 1024);
    flags.parse(args);
    if (dirs.empty()) throw UsageError("expected the shards' output folders (DIR...)");
    for (const std::string& d : dirs) {
      if (!std::filesystem::is_directory(d)) throw UsageError(d + ": not a folder");
    }
  } catch (const std::invalid_argument& e) {
    return report_usage_error(err, "llmsim capacity-merge", e);
  }
  try {
    const std::vector<CapacityRecord> records = capacity_records(dirs, shards);
    std::vector<std::string> command = without_flags(records.front().args, {"--shard", "--out"});
    if (!result_json.empty()) command = with_flag(command, "--result-json", result_json);
    if (!report.empty()) command = with_flag(command, "--report", report);
    CapacityOptions o;
    try {
      o = parse_capacity_args(jobs > 0 ? with_flag(command, "--jobs", std::to_string(jobs))
                                       : command);
    } catch (const std::exception& e) {
      throw CapacityMergeError(records.front().file.string() + ": its arguments: " + e.what());
    }
    const Trace trace = read_trace_file(o.base.trace_path);
    warn_if_stretching_bursts(o, trace, "llmsim capacity-merge", err);
    const std::vector<Candidate> candidates = make_candidates(o);
    CapacityResult r = capacity_header(o, trace);
    for (const CapacityRecord& rec : records) {
      if (rec.candidates != candidates.size()) {
        throw CapacityMergeError(rec.file.string() + ": " + std::to_string(rec.candidates) +
                                 " candidates, the question has " +
                                 std::to_string(candidates.size()));
      }
    }
    for (size_t k = 0; k < candidates.size(); ++k) {
      const CapacityRecord& rec = records[k % records.size()];
      const auto it = rec.answers.find(k);
      if (it == rec.answers.end()) {
        throw CapacityMergeError(rec.file.string() + ": no answer for candidate " +
                                 std::to_string(k));
      }
      CapacityCandidate c{candidates[k].settings, {}};
      c.engines.outcome.first_true = it->second;
      r.candidates.push_back(std::move(c));
    }
    // The answer's full search (its points are in the outputs), replayed as its shard did.
    size_t shown = 0;
    for (size_t k = 0; k < r.candidates.size(); ++k) {
      const auto& a = r.candidates[k].engines.outcome.first_true;
      const auto& b = r.candidates[shown].engines.outcome.first_true;
      if (a && (!b || *a < *b)) shown = k;
    }
    r.candidates[shown].engines = search_engines(trace, o, candidates[shown]);
    finish_capacity(o, trace, candidates, r);
    // The unsharded run's command line, for the report: without --jobs only if it had none.
    write_capacity_outputs(o, command, r, out);
    return 0;
  } catch (const TraceError& e) {
    err << "llmsim capacity-merge: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << "llmsim capacity-merge: " << e.what() << "; nothing was written\n";
    return 1;
  }
}

}  // namespace llm
