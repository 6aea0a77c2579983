#include "sim/cli/sweep_merge_command.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <sstream>

#include "core/flag_set.h"
#include "core/pending_file.h"
#include "sim/cli/sweep_command.h"
#include "sim/sweep/sweep_shard_record.h"

namespace llm {
namespace {

namespace fs = std::filesystem;

struct MergeOptions {
  std::vector<std::string> dirs;
  std::string out_dir;
  std::string report;
  bool quiet = false;
  int shards = 0;  // --shards N: how many there must be (0: as the records say)
};

MergeOptions parse_merge_args(const std::vector<std::string>& args) {
  MergeOptions o;
  FlagSet flags("llmsim sweep-merge");
  flags.positional([&o](const std::string& dir) { o.dirs.push_back(dir); })
      .nonempty({"--out"}, o.out_dir)
      .nonempty({"--report"}, o.report)
      .boolean({"--quiet"}, o.quiet)
      .integer({"--shards"}, o.shards, 1, 100000);
  flags.parse(args);
  if (o.dirs.empty()) throw UsageError("expected the shards' output folders (DIR...)");
  if (o.out_dir.empty()) throw UsageError("--out: missing (where the merged outputs go)");
  for (const std::string& dir : o.dirs) {
    if (!fs::is_directory(dir)) throw UsageError(dir + ": not a folder");
  }
  return o;
}

// A failure of the shards' outputs: nothing is merged, exit code 1.
struct MergeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw MergeError(path.string() + ": cannot read");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct FoundRecord {
  fs::path dir;
  fs::path file;
  SweepShardRecord record;
};

std::vector<FoundRecord> find_records(const std::vector<std::string>& dirs) {
  static const std::regex kName(R"(shard-([0-9]+)-of-([0-9]+)\.json)");
  std::vector<FoundRecord> found;
  for (const std::string& dir : dirs) {
    std::vector<fs::path> files;
    for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
      if (e.is_regular_file() && std::regex_match(e.path().filename().string(), kName)) {
        files.push_back(e.path());
      }
    }
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      FoundRecord r{dir, file, parse_shard_record(read_text(file), file.string())};
      if (file.filename() != shard_record_name(r.record.shard)) {
        throw MergeError(file.string() + ": records shard " + shard_label(r.record.shard));
      }
      found.push_back(std::move(r));
    }
  }
  return found;
}

std::string joined(const std::vector<std::string>& items, const std::string& sep) {
  std::string text;
  for (const std::string& s : items) text += (text.empty() ? "" : sep) + s;
  return text;
}

void throw_if_missing(const std::vector<std::string>& missing, int count,
                      const std::vector<std::string>& dirs) {
  if (missing.empty()) return;
  throw MergeError(std::string(missing.size() == 1 ? "shard " : "shards ") + joined(missing, ", ") +
                   (missing.size() == 1 ? " is" : " are") + " missing (no shard-I-of-" +
                   std::to_string(count) + ".json in " + joined(dirs, ", ") +
                   "): it failed, was cancelled or has not run");
}

// The shards' records, one per index, checked to be of one sweep: records[i] is shard i's.
// With `expected` shards (--shards; 0: as many as the first record says).
std::vector<FoundRecord> complete_shards(std::vector<FoundRecord> found,
                                         const std::vector<std::string>& dirs, int expected) {
  if (found.empty() && expected == 0) {
    throw MergeError("no shard records (shard-I-of-N.json) in " + joined(dirs, ", ") +
                     ": no shard finished");
  }
  const int count = expected > 0 ? expected : found.front().record.shard.count;
  std::vector<std::optional<FoundRecord>> by_index(static_cast<size_t>(count));
  std::vector<std::string> missing;
  if (found.empty()) {
    for (int i = 0; i < count; ++i) missing.push_back(shard_label({i, count}));
  }
  throw_if_missing(missing, count, dirs);
  const FoundRecord& first = found.front();
  if (first.record.shard.count != count) {
    throw MergeError(first.file.string() + " is shard " + shard_label(first.record.shard) +
                     " but --shards is " + std::to_string(count));
  }
  const std::vector<std::string> identity = sweep_identity_args(first.record.args);
  for (FoundRecord& r : found) {
    if (r.record.shard.count != count) {
      throw MergeError(r.file.string() + " is shard " + shard_label(r.record.shard) + " but " +
                       first.file.string() + " is shard " + shard_label(first.record.shard) +
                       ": shards of different splits");
    }
    if (sweep_identity_args(r.record.args) != identity) {
      throw MergeError(r.file.string() + ": not the same sweep as " + first.file.string() +
                       " (llmsim sweep " + joined(sweep_identity_args(r.record.args), " ") +
                       " vs llmsim sweep " + joined(identity, " ") + ")");
    }
    auto& slot = by_index[static_cast<size_t>(r.record.shard.index)];
    if (slot) {
      throw MergeError("shard " + shard_label(r.record.shard) +
                       " is there twice: " + slot->file.string() + " and " + r.file.string());
    }
    slot = std::move(r);
  }
  for (int i = 0; i < count; ++i) {
    if (!by_index[static_cast<size_t>(i)]) missing.push_back(shard_label({i, count}));
  }
  throw_if_missing(missing, count, dirs);
  std::vector<FoundRecord> records;
  for (auto& r : by_index) records.push_back(std::move(*r));
  return records;
}

struct Merged {
  SweepOutcome outcome;
  std::vector<fs::path> summaries;  // each point's summary.json in its shard's folder (ok only)
  std::vector<std::string> args;    // the sweep's command line
};

Merged merge_records(const std::vector<FoundRecord>& records) {
  Merged m;
  const std::vector<std::string> identity = sweep_identity_args(records.front().record.args);
  SweepOptions options;
  try {
    options = parse_sweep_args(identity);
  } catch (const std::exception& e) {
    throw MergeError(records.front().file.string() + ": its sweep's arguments: " + e.what());
  }
  const std::vector<SweepPoint> points = expand_sweep_grid(options.axes);
  m.outcome.trace = options.base.trace_path;
  m.outcome.sort_by = options.sort_by;
  m.outcome.slo = options.base.slo;
  m.outcome.faults = options.base.faults;
  m.outcome.metric_percentiles = options.base.metric_percentiles;
  m.outcome.axes = options.axes;
  std::vector<std::optional<SweepPointResult>> results(points.size());
  m.summaries.resize(points.size());
  for (const FoundRecord& r : records) {
    const std::string where = r.file.string();
    if (r.record.grid_points != points.size()) {
      throw MergeError(where + ": a grid of " + std::to_string(r.record.grid_points) +
                       " points, the sweep's has " + std::to_string(points.size()));
    }
    if (r.record.indices != shard_points(points.size(), r.record.shard)) {
      throw MergeError(where + ": not the points of shard " + shard_label(r.record.shard) +
                       " (point k is shard k mod N's)");
    }
    for (size_t i = 0; i < r.record.points.size(); ++i) {
      const size_t k = r.record.indices[i];
      const SweepPointResult& p = r.record.points[i];
      if (p.dir_name != sweep_point_dir_name(k, points.size(), points[k])) {
        throw MergeError(where + ": point " + std::to_string(k) + " is " + p.dir_name +
                         ", expected " + sweep_point_dir_name(k, points.size(), points[k]));
      }
      results[k] = p;
      results[k]->point = points[k];
      if (!p.ok) continue;
      m.summaries[k] = r.dir / p.dir_name / "summary.json";
      if (!fs::is_regular_file(m.summaries[k])) {
        throw MergeError("shard " + shard_label(r.record.shard) +
                         " is not whole: " + m.summaries[k].string() + " is missing");
      }
    }
  }
  for (auto& r : results) m.outcome.points.push_back(std::move(*r));
  m.args = without_flags(records.front().record.args, {"--shard"});
  return m;
}

bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return fs::equivalent(a, b, ec);
}

// Each point's summary.json under --out (those already there left alone), then the tables and
// the report.
void write_merged(const Merged& m, const MergeOptions& o) {
  std::error_code ec;
  fs::create_directories(o.out_dir, ec);
  if (ec) throw std::runtime_error("--out: cannot create " + o.out_dir + ": " + ec.message());
  for (size_t k = 0; k < m.outcome.points.size(); ++k) {
    const SweepPointResult& p = m.outcome.points[k];
    if (!p.ok) continue;
    const fs::path dir = fs::path(o.out_dir) / p.dir_name;
    if (same_folder(m.summaries[k].parent_path(), dir)) continue;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("--out: cannot create " + dir.string() + ": " + ec.message());
    PendingFile file("--out", dir / "summary.json");
    file.stream() << read_text(m.summaries[k]);
    file.commit();
  }
  if (!o.report.empty()) {
    write_sweep_report(m.outcome,
                       with_flag(with_flag(m.args, "--out", o.out_dir), "--report", o.report),
                       o.report);
  }
  write_sweep_tables(m.outcome, o.out_dir);
}

}  // namespace

std::string sweep_merge_usage() {
  return R"(usage: llmsim sweep-merge DIR... --out DIR [--shards N] [--report FILE] [--quiet]

Joins the outputs of the shards of one sweep (llmsim sweep ... --shard I/N --out DIR) into
what the sweep run in one piece writes: DIR/sweep.csv, DIR/sweep.json, DIR/POINT/summary.json
and, with --report, the HTML report, byte for byte. The shards may share one folder or each
have their own. A shard that is missing (it failed, was cancelled or has not run), found
twice or of another sweep is named and nothing is written (exit code 1).
  --out DIR        where the merged outputs go (may be the shards' own folder)
  --report FILE    the sweep's HTML report
  --shards N       how many shards there are: each one missing is named even when none ran
                   (without it, as many as the records say)
  --quiet          no table
Exit codes: 0 merged, 1 a shard missing or bad, or a point of the sweep failed (merged and
reported as llmsim sweep reports it), 2 bad usage. See docs/cluster.md.
)";
}

int run_sweep_merge_command(const std::vector<std::string>& args, std::ostream& out,
                            std::ostream& err) {
  if (wants_help(args)) {
    out << sweep_merge_usage();
    return 0;
  }
  MergeOptions options;
  try {
    options = parse_merge_args(args);
  } catch (const std::invalid_argument& e) {
    return report_usage_error(err, "llmsim sweep-merge", e);
  }
  Merged merged;
  try {
    merged =
        merge_records(complete_shards(find_records(options.dirs), options.dirs, options.shards));
  } catch (const std::exception& e) {
    err << "llmsim sweep-merge: " << e.what() << "; nothing was written\n";
    return 1;
  }
  if (!options.quiet) out << format_sweep_table(merged.outcome);
  const int code = report_failed_points(merged.outcome, "llmsim sweep-merge", err);
  try {
    write_merged(merged, options);
  } catch (const std::exception& e) {
    err << "llmsim sweep-merge: " << e.what() << "\n";
    return 1;
  }
  return code;
}

}  // namespace llm
