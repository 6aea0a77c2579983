// `llmsim capacity`'s command line: its own flags, the replay flags it passes on, and the
// --search candidates.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <iterator>
#include <thread>

#include "core/flag_set.h"
#include "core/flag_values.h"
#include "sim/cli/capacity_run.h"
#include "sim/cli/sweep_command.h"

namespace llm {

namespace {

const char* const kCapacityValueFlags[] = {"--slo",   "--search",        "--max-engines",
                                           "--jobs",  "--result-json",   "--report",
                                           "--shard", "--gpu-hour-cost", "--out"};
const char* const kRefusedReplayFlags[] = {"--data-parallel-size",
                                           "--output-dir",
                                           "--metrics-out",
                                           "--promtool-series",
                                           "--metrics-snapshot",
                                           "--scrape-interval",
                                           "--start-time",
                                           "--fail-on-slo",
                                           "--quiet",
                                           "--otlp-out"};

// `capacity_flags`: this command's own flags, for an unknown flag's "did you mean".
ReplayOptions parse_replay_part(const std::vector<std::string>& args,
                                const std::vector<std::string>& capacity_flags = {}) {
  try {
    return parse_replay_args(args);
  } catch (const UsageError& e) {
    throw as_part_of(e, "llmsim replay", "llmsim capacity", capacity_flags);
  }
}

SearchAxis parse_search_axis(const std::string& text) {
  const size_t eq = text.find('=');
  SearchAxis axis;
  axis.flag = text.substr(0, eq);
  while (axis.flag.rfind('-', 0) == 0) axis.flag.erase(0, 1);
  if (eq == std::string::npos || axis.flag.empty()) {
    throw UsageError("--search: expected FLAG=V1,V2,... such as max-num-seqs=64,128, got '" + text +
                     "'");
  }
  for (const char* refused : {"data-parallel-size", "arrival-rate-scale"}) {
    if (axis.flag == refused) {
      throw UsageError("--search: " + axis.flag +
                       " is what capacity searches; give engine arguments such as max-num-seqs");
    }
  }
  const std::string list = text.substr(eq + 1);
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    const std::string value = list.substr(start, end - start);
    if (value.empty()) throw UsageError("--search: " + text + ": empty value");
    axis.values.push_back(value);
    start = end + 1;
  }
  return axis;
}

}  // namespace

CapacityOptions parse_capacity_args(const std::vector<std::string>& args) {
  CapacityOptions o;
  o.jobs = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::string> own;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {  // the rest is positional: replay's parser takes it as it is
      o.replay_args.insert(o.replay_args.end(), args.begin() + static_cast<std::ptrdiff_t>(i),
                           args.end());
      break;
    }
    const std::string name = flag_name(args[i]);
    const bool is_own = std::find(std::begin(kCapacityValueFlags), std::end(kCapacityValueFlags),
                                  name) != std::end(kCapacityValueFlags);
    if (is_own) {
      own.push_back(args[i]);
      if (args[i].find('=') == std::string::npos && i + 1 < args.size()) own.push_back(args[++i]);
      continue;
    }
    for (const char* refused : kRefusedReplayFlags) {
      if (name == refused) {
        throw UsageError(name + (name == "--data-parallel-size"
                                     ? ": capacity searches the number of engines (see "
                                       "--max-engines)"
                                     : ": not a capacity flag (see llmsim capacity --help)"));
      }
    }
    o.replay_args.push_back(args[i]);
  }
  bool have_slo = false;
  FlagSet flags("llmsim capacity");
  flags
      .value({"--slo"},
             [&](const std::string&, const std::string& v) {
               o.slo = parse_slo(v);
               have_slo = true;
             })
      .value({"--search"},
             [&](const std::string&, const std::string& v) {
               SearchAxis axis = parse_search_axis(v);
               for (const SearchAxis& other : o.search) {
                 if (other.flag == axis.flag) {
                   throw UsageError("--search: " + axis.flag + " given twice");
                 }
               }
               o.search.push_back(std::move(axis));
             })
      .integer({"--max-engines"}, o.max_engines, 1, 4096)
      .integer({"--jobs"}, o.jobs, 1, 1024)
      .nonempty({"--result-json"}, o.result_json)
      .nonempty({"--report"}, o.report)
      .nonempty({"--out"}, o.out_dir)
      .value({"--shard"},
             [&](const std::string& flag, const std::string& v) {
               o.shard =
                   parse_sweep_shard(flag, v, [](const char* name) { return std::getenv(name); });
               o.sharded = true;
             })
      .value({"--gpu-hour-cost"}, [&](const std::string& flag, const std::string& v) {
        o.gpu_hour_cost = parse_double_above_flag(flag, v, 0);
      });
  flags.parse(own);
  o.base = parse_replay_part(o.replay_args, flags.names());
  if (!have_slo) throw UsageError("missing --slo KEY=V,... (such as ttft_p99=2s,tpot_p99=100ms)");
  if (o.sharded && o.out_dir.empty()) {
    throw UsageError("--shard: needs --out DIR (where the shard writes its record)");
  }
  if (!o.sharded && !o.out_dir.empty()) throw UsageError("--out: only with --shard I/N");
  if (o.sharded && (!o.report.empty() || !o.result_json.empty())) {
    throw UsageError(std::string(o.report.empty() ? "--result-json" : "--report") +
                     ": not with --shard (give it to llmsim capacity-merge)");
  }
  return o;
}

ReplayOptions with_flags(const CapacityOptions& o, const CapacitySettings& settings) {
  std::vector<std::string> args = o.replay_args;
  auto flags_end = std::find(args.begin(), args.end(), "--");  // flags go before a "--"
  for (const auto& [flag, value] : settings) {
    flags_end = args.insert(flags_end, "--" + flag + "=" + value) + 1;
  }
  return parse_replay_part(args);
}

std::vector<Candidate> make_candidates(const CapacityOptions& o) {
  std::vector<Candidate> out(1);
  for (const SearchAxis& axis : o.search) {
    std::vector<Candidate> next;
    for (const Candidate& c : out) {
      for (const std::string& value : axis.values) {
        Candidate d = c;
        d.settings.emplace_back(axis.flag, value);
        next.push_back(std::move(d));
      }
    }
    out = std::move(next);
    if (out.size() > 256) throw UsageError("--search: more than 256 combinations");
  }
  for (Candidate& c : out) {
    try {
      c.options = with_flags(o, c.settings);
      make_replay_config(c.options);  // refuses a configuration that cannot run
    } catch (const std::invalid_argument& e) {
      if (c.settings.empty()) throw UsageError(e.what());
      throw UsageError("--search: " + describe_settings(c.settings) + ": " + e.what());
    }
  }
  return out;
}

}  // namespace llm
