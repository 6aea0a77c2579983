#include "sim/sweep/sweep_grid.h"

#include <set>

#include "core/flag_values.h"

namespace llm {
namespace {

std::vector<std::string> split_values(const std::string& text) {
  std::vector<std::string> values;
  size_t begin = 0;
  while (true) {
    const size_t comma = text.find(',', begin);
    values.push_back(text.substr(begin, comma == std::string::npos ? comma : comma - begin));
    if (comma == std::string::npos) return values;
    begin = comma + 1;
  }
}

bool safe_in_file_name(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '=' || c == '-';
}

}  // namespace

SweepAxis parse_sweep_axis(const std::string& spec) {
  const std::string where = "--set " + spec + ": ";
  const size_t eq = spec.find('=');
  if (eq == std::string::npos) throw UsageError(where + "expected FLAG=V1,V2,...");
  SweepAxis axis;
  axis.spec = spec;
  axis.flag = spec.substr(0, eq);
  if (axis.flag.rfind("--", 0) == 0) axis.flag.erase(0, 2);
  if (axis.flag.empty()) throw UsageError(where + "empty flag name (expected FLAG=V1,V2,...)");
  if (eq + 1 == spec.size()) throw UsageError(where + "no values (an empty grid)");
  std::set<std::string> seen;
  for (const std::string& value : split_values(spec.substr(eq + 1))) {
    if (value.empty()) throw UsageError(where + "empty value");
    if (!seen.insert(value).second) throw UsageError(where + "value '" + value + "' given twice");
    axis.values.push_back(value);
  }
  return axis;
}

std::vector<SweepPoint> expand_sweep_grid(const std::vector<SweepAxis>& axes) {
  if (axes.empty()) throw UsageError("--set: required (FLAG=V1,V2,..., one per swept flag)");
  std::set<std::string> flags;
  for (const SweepAxis& axis : axes) {
    if (axis.values.empty()) throw UsageError("--set " + axis.spec + ": no values (an empty grid)");
    if (!flags.insert(axis.flag).second) {
      throw UsageError("--set " + axis.spec + ": " + axis.flag + " is swept by another --set");
    }
  }
  std::vector<SweepPoint> points = {SweepPoint{}};
  for (const SweepAxis& axis : axes) {
    std::vector<SweepPoint> longer;
    longer.reserve(points.size() * axis.values.size());
    for (const SweepPoint& point : points) {
      for (const std::string& value : axis.values) {
        longer.push_back(point);
        longer.back().push_back({axis.flag, value});
      }
    }
    points = std::move(longer);
  }
  return points;
}

std::vector<std::string> sweep_setting_args(const SweepSetting& setting) {
  if (setting.value == "true") return {"--" + setting.flag};
  if (setting.value == "false") return {"--no-" + setting.flag};
  return {"--" + setting.flag + "=" + setting.value};
}

std::vector<std::string> sweep_point_args(const SweepPoint& point) {
  std::vector<std::string> args;
  for (const SweepSetting& setting : point) {
    for (std::string& arg : sweep_setting_args(setting)) args.push_back(std::move(arg));
  }
  return args;
}

std::string sweep_point_label(const SweepPoint& point) {
  std::string label;
  for (const SweepSetting& setting : point) {
    if (!label.empty()) label += ' ';
    label += setting.flag + "=" + setting.value;
  }
  return label;
}

std::string sweep_point_dir_name(size_t index, size_t num_points, const SweepPoint& point) {
  const size_t width = std::to_string(num_points == 0 ? 0 : num_points - 1).size();
  std::string name = std::to_string(index);
  name.insert(0, width > name.size() ? width - name.size() : 0, '0');
  for (const SweepSetting& setting : point) {
    name += '_';
    for (char c : setting.flag + "=" + setting.value) name += safe_in_file_name(c) ? c : '_';
  }
  return name;
}

}  // namespace llm
