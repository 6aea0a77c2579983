// The grid of `llmsim sweep`: each `--set FLAG=V1,V2,...` is an axis, the grid is every
// combination of one value per axis, and each point becomes the replay flags that the same
// `llmsim replay` command line would carry ("--max-num-seqs=64", "--no-async-scheduling").
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <vector>

namespace llm {

// One `--set`: a replay flag without its leading dashes and the values it takes, in order.
struct SweepAxis {
  std::string spec;  // the --set text as given, for error messages
  std::string flag;  // "max-num-seqs"
  std::vector<std::string> values;
};

struct SweepSetting {
  std::string flag;
  std::string value;
};

// One combination: a setting per axis, in the axes' order.
using SweepPoint = std::vector<SweepSetting>;

// Parses "FLAG=V1,V2,..." (a leading "--" on FLAG is accepted). Throws UsageError starting with
// "--set SPEC:" for a missing '=', an empty flag, an empty or repeated value.
SweepAxis parse_sweep_axis(const std::string& spec);

// Every combination, the first axis varying slowest. Throws UsageError for no axes or a flag
// given by two --set.
std::vector<SweepPoint> expand_sweep_grid(const std::vector<SweepAxis>& axes);

// The replay flags of a setting: "--FLAG=VALUE"; a boolean switch takes true or false and
// becomes "--FLAG" or "--no-FLAG".
std::vector<std::string> sweep_setting_args(const SweepSetting& setting);
std::vector<std::string> sweep_point_args(const SweepPoint& point);

// "max-num-seqs=64 kv-cache-dtype=fp8", for tables.
std::string sweep_point_label(const SweepPoint& point);

// The point's folder under --out: its grid index, zero-padded to the width of the last index,
// then its settings, with every character outside [A-Za-z0-9.=-] replaced by '_'
// ("03_max-num-seqs=64_kv-cache-dtype=fp8"). Unique per index, the same on every run.
std::string sweep_point_dir_name(size_t index, size_t num_points, const SweepPoint& point);

}  // namespace llm
