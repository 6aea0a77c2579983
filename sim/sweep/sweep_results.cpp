#include "sim/sweep/sweep_results.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/replay/summary_figures.h"
#include "sim/report/figure_map.h"

namespace llm {
namespace {

// The figures every table shows after the sort figure.
constexpr const char* kHeadlineFigures[] = {"ttft_p99", "tpot_p99",    "itl_p99",
                                            "e2e_p99",  "preemptions", "output_tokens_per_s"};

// A figure of the point's record: the sort figure or one of summary_figure_keys().
double figure(const SweepOutcome& outcome, const SweepPointResult& result, const std::string& key) {
  if (key == outcome.sort_by) return result.figures.sort_value;
  const auto it = result.figures.values.find(key);
  return it == result.figures.values.end() ? std::nan("") : it->second;
}

std::string short_number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// The sort figure, the headline figures, then goodput and attainment under per-request targets.
std::vector<std::string> table_figures(const SweepOutcome& outcome) {
  std::vector<std::string> keys = {outcome.sort_by};
  std::vector<std::string> more(std::begin(kHeadlineFigures), std::end(kHeadlineFigures));
  if (goodput_targets(outcome.slo).any()) {
    more.push_back("goodput");
    more.push_back("attainment");
  }
  for (const std::string& key : more) {
    if (key != outcome.sort_by) keys.push_back(key);
  }
  return keys;
}

// The --metric-percentiles figures of a distribution that are not among its fixed ones.
std::vector<std::string> extra_percentiles(const std::vector<double>& levels,
                                           const std::string& distribution,
                                           const std::vector<std::string>& fixed) {
  std::vector<std::string> keys;
  for (double level : levels) {
    const std::string key = distribution + "_" + percentile_name(level);
    if (std::find(fixed.begin(), fixed.end(), key) == fixed.end() &&
        std::find(keys.begin(), keys.end(), key) == keys.end()) {
      keys.push_back(key);
    }
  }
  return keys;
}

// The point's replay duration (0 when unknown): the fault windows that ran began before it.
double run_seconds(const SweepPointFigures& figures) {
  const auto duration = figures.values.find("duration_s");
  return duration == figures.values.end() ? 0 : duration->second;
}

nlohmann::ordered_json faults_json(const SweepPointFigures& figures) {
  const double run_s = run_seconds(figures);
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const FaultWindow& f : figures.faults) {
    const double active = fault_active_s(f, run_s);
    list.push_back({{"spec", fault_spec_text(f)},
                    {"from_s", static_cast<double>(f.from_ns) * 1e-9},
                    {"to_s", static_cast<double>(f.to_ns) * 1e-9},
                    {"active_s", active},
                    {"ran", active > 0}});
  }
  return list;
}

}  // namespace

std::vector<std::string> sweep_figure_keys(const SweepOutcome& outcome) {
  const std::vector<std::string>& fixed = summary_figure_keys();
  if (outcome.metric_percentiles.empty()) return fixed;
  std::vector<std::string> keys;
  for (const std::string& key : fixed) {
    const std::optional<FigureName> name = parse_figure_name(key);
    if (name && !name->distribution.empty() && name->statistic == "max") {
      for (const std::string& extra :
           extra_percentiles(outcome.metric_percentiles, name->distribution, fixed)) {
        keys.push_back(extra);
      }
    }
    keys.push_back(key);
  }
  return keys;
}

std::string ran_faults_text(const SweepPointFigures& figures) {
  const double run_s = run_seconds(figures);
  std::string text;
  for (const FaultWindow& f : figures.faults) {
    if (fault_active_s(f, run_s) <= 0) continue;
    text += (text.empty() ? "" : " ") + fault_spec_text(f);
  }
  return text;
}

SweepPointFigures sweep_point_figures(const SweepOutcome& outcome, const ReplaySummary& summary) {
  SweepPointFigures f;
  f.values = summary_figure_map(summary);
  f.sort_value = summary_figure(summary, outcome.sort_by).value_or(std::nan(""));
  f.unstable = summary.overload.unstable;
  f.unstable_since_s = summary.overload.since_s;
  f.slo = check_slo(summary, outcome.slo);
  for (const std::string& key : sweep_figure_keys(outcome)) {
    if (!f.values.count(key)) f.values[key] = summary_figure(summary, key).value_or(std::nan(""));
  }
  f.faults = summary.faults;
  return f;
}

void record_sweep_figures(SweepOutcome& outcome) {
  for (SweepPointResult& result : outcome.points) {
    if (result.ok) result.figures = sweep_point_figures(outcome, result.summary);
  }
}

bool meets_slo(const SweepOutcome&, const SweepPointResult& result) {
  return result.ok && all_met(result.figures.slo);
}

std::vector<size_t> sweep_ranking(const SweepOutcome& outcome) {
  std::vector<size_t> ran, failed;
  for (size_t i = 0; i < outcome.points.size(); ++i) {
    (outcome.points[i].ok ? ran : failed).push_back(i);
  }
  const bool ascending = lower_is_better(outcome.sort_by);
  std::vector<bool> met(outcome.points.size());
  for (size_t i : ran) met[i] = meets_slo(outcome, outcome.points[i]);
  std::stable_sort(ran.begin(), ran.end(), [&](size_t a, size_t b) {
    if (met[a] != met[b]) return static_cast<bool>(met[a]);
    const double x = figure(outcome, outcome.points[a], outcome.sort_by);
    const double y = figure(outcome, outcome.points[b], outcome.sort_by);
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return ascending ? x < y : x > y;
  });
  ran.insert(ran.end(), failed.begin(), failed.end());
  return ran;
}

int64_t num_failed_points(const SweepOutcome& outcome) {
  return std::count_if(outcome.points.begin(), outcome.points.end(),
                       [](const SweepPointResult& r) { return !r.ok; });
}

// The overload cell of a point: "UNSTABLE@27.0s" or "stable" (sim/replay/overload.h).
std::string overload_cell(const SweepPointFigures& figures) {
  if (!figures.unstable) return "stable";
  char buf[48];
  std::snprintf(buf, sizeof buf, "UNSTABLE@%.1fs", figures.unstable_since_s);
  return buf;
}

std::string format_sweep_table(const SweepOutcome& outcome) {
  const std::vector<std::string> figures = table_figures(outcome);
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"rank"};
  for (const SweepAxis& axis : outcome.axes) header.push_back(axis.flag);
  const bool with_slo = !outcome.slo.empty();
  if (with_slo) header.push_back("slo");
  // An overload column once a point was unstable: its latencies say little but "too much load".
  const bool with_overload =
      std::any_of(outcome.points.begin(), outcome.points.end(),
                  [](const SweepPointResult& r) { return r.ok && r.figures.unstable; });
  if (with_overload) header.push_back("overload");
  for (const std::string& key : figures) header.push_back(key);
  rows.push_back(header);
  const std::vector<size_t> ranking = sweep_ranking(outcome);
  for (size_t rank = 0; rank < ranking.size(); ++rank) {
    const SweepPointResult& result = outcome.points[ranking[rank]];
    std::vector<std::string> row = {std::to_string(rank + 1)};
    for (const SweepSetting& setting : result.point) row.push_back(setting.value);
    if (result.ok) {
      if (with_slo) row.push_back(meets_slo(outcome, result) ? "met" : "MISSED");
      if (with_overload) row.push_back(overload_cell(result.figures));
      for (const std::string& key : figures)
        row.push_back(short_number(figure(outcome, result, key)));
    } else {
      row.push_back("FAILED: " + result.error);
    }
    rows.push_back(row);
  }
  // A failed row's last cell (its reason) is left out of the widths.
  std::vector<size_t> widths(header.size(), 0);
  for (const auto& row : rows) {
    const size_t measured = row.size() == header.size() ? row.size() : row.size() - 1;
    for (size_t c = 0; c < measured; ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string text = "llmsim sweep: " + std::to_string(outcome.points.size()) + " points, by " +
                     outcome.sort_by +
                     (lower_is_better(outcome.sort_by) ? " (lowest first)" : " (highest first)") +
                     "; latencies in seconds" +
                     (goodput_targets(outcome.slo).any()
                          ? "; goodput in good requests/s (" +
                                describe_goodput(goodput_targets(outcome.slo)) + " per request)"
                          : "") +
                     "\n";
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      line += row[c];
      if (c + 1 < row.size()) line.append(widths[c] - row[c].size(), ' ');
    }
    text += line + "\n";
  }
  const int64_t failed = num_failed_points(outcome);
  if (failed > 0) text += std::to_string(failed) + " of the points failed\n";
  return text;
}

std::string format_sweep_csv(const SweepOutcome& outcome) {
  std::string text = "rank,dir";
  for (const SweepAxis& axis : outcome.axes) text += "," + csv_field(axis.flag);
  text += ",status,error,slo";
  const bool with_faults =
      std::any_of(outcome.points.begin(), outcome.points.end(),
                  [](const SweepPointResult& r) { return r.ok && !r.figures.faults.empty(); });
  if (with_faults) text += ",faults";
  const std::vector<std::string> keys = sweep_figure_keys(outcome);
  for (const std::string& key : keys) text += "," + key;
  text += "\n";
  const std::vector<size_t> ranking = sweep_ranking(outcome);
  for (size_t rank = 0; rank < ranking.size(); ++rank) {
    const SweepPointResult& result = outcome.points[ranking[rank]];
    text += std::to_string(rank + 1) + "," + csv_field(result.dir_name);
    for (const SweepSetting& setting : result.point) text += "," + csv_field(setting.value);
    text += result.ok ? ",ok," : ",failed," + csv_field(result.error);
    text += ",";
    if (result.ok && !outcome.slo.empty()) text += meets_slo(outcome, result) ? "met" : "missed";
    if (with_faults) text += "," + (result.ok ? csv_field(ran_faults_text(result.figures)) : "");
    for (const std::string& key : keys) {
      text += ",";
      if (result.ok) text += json_number(figure(outcome, result, key));
    }
    text += "\n";
  }
  return text;
}

std::string format_sweep_json(const SweepOutcome& outcome) {
  nlohmann::ordered_json doc;
  doc["trace"] = outcome.trace;
  doc["sort"] = outcome.sort_by;
  doc["lower_is_better"] = lower_is_better(outcome.sort_by);
  if (!outcome.slo.empty()) {
    doc["slo"] = nlohmann::ordered_json::array();
    for (const SloTarget& t : outcome.slo) {
      doc["slo"].push_back({{"key", t.key}, {"target", t.target}});
    }
  }
  if (!outcome.metric_percentiles.empty()) doc["metric_percentiles"] = outcome.metric_percentiles;
  doc["axes"] = nlohmann::ordered_json::array();
  for (const SweepAxis& axis : outcome.axes) {
    doc["axes"].push_back({{"flag", axis.flag}, {"values", axis.values}});
  }
  doc["points"] = nlohmann::ordered_json::array();
  const std::vector<size_t> ranking = sweep_ranking(outcome);
  for (size_t rank = 0; rank < ranking.size(); ++rank) {
    const SweepPointResult& result = outcome.points[ranking[rank]];
    nlohmann::ordered_json point;
    point["rank"] = rank + 1;
    point["dir"] = result.dir_name;
    point["settings"] = nlohmann::ordered_json::object();
    for (const SweepSetting& setting : result.point)
      point["settings"][setting.flag] = setting.value;
    point["status"] = result.ok ? "ok" : "failed";
    if (result.ok && !outcome.slo.empty()) {
      point["slo"] = nlohmann::ordered_json::array();
      for (const SloResult& r : result.figures.slo) {
        point["slo"].push_back(
            {{"key", r.key}, {"value", r.value}, {"target", r.target}, {"met", r.met}});
      }
    }
    if (result.ok && !result.figures.faults.empty()) point["faults"] = faults_json(result.figures);
    if (result.ok) {
      point["overload"] = {{"unstable", result.figures.unstable},
                           {"since_s", result.figures.unstable
                                           ? nlohmann::ordered_json(result.figures.unstable_since_s)
                                           : nlohmann::ordered_json(nullptr)}};
      nlohmann::ordered_json figures = nlohmann::ordered_json::object();
      for (const std::string& key : sweep_figure_keys(outcome))
        figures[key] = figure(outcome, result, key);
      point["figures"] = figures;
    } else {
      point["error"] = result.error;
    }
    doc["points"].push_back(point);
  }
  return doc.dump(2) + "\n";
}

}  // namespace llm
