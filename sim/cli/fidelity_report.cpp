#include "sim/cli/fidelity_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <utility>

#include "core/sample_stats.h"

namespace llm {
namespace {

nlohmann::ordered_json table_json(const std::vector<FidelityRow>& rows) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const FidelityRow& r : rows) {
    j.push_back({{"figure", r.figure},
                 {"real", r.real},
                 {"real_mean", r.real_mean()},
                 {"spread", r.spread()},
                 {"predicted", r.predicted},
                 {"predicted_runs", r.predicted_runs},
                 {"predicted_spread", r.predicted_spread()},
                 {"error", r.error()},
                 {"goal", r.goal},
                 {"verdict", r.verdict()}});
  }
  return j;
}

// "TTFT p50 -3.1%, TPOT p50 ..." for the p50 and p90 rows.
std::string p50_p90_errors(const std::vector<FidelityRow>& rows) {
  std::string out;
  for (const FidelityRow& r : rows) {
    if (r.figure.find(" p50") == std::string::npos && r.figure.find(" p90") == std::string::npos) {
      continue;
    }
    out += (out.empty() ? "" : ", ") + r.figure.substr(0, r.figure.find(" (")) + " " +
           fidelity_pct(r.error(), true);
  }
  return out;
}

}  // namespace

std::string fidelity_pct(double fraction, bool sign) {
  char buf[32];
  std::snprintf(buf, sizeof buf, sign ? "%+.1f%%" : "%.1f%%", 100 * fraction);
  return buf;
}

double mean_of_runs(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return values.empty() ? 0 : sum / static_cast<double>(values.size());
}

double spread_of_runs(const std::vector<double>& values) {
  const double mean = mean_of_runs(values);
  if (values.size() < 2 || mean <= 0) return 0;
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return (*hi - *lo) / mean;
}

double FidelityRow::real_mean() const { return mean_of_runs(real); }

double FidelityRow::spread() const { return spread_of_runs(real); }

double FidelityRow::predicted_spread() const { return spread_of_runs(predicted_runs); }

double FidelityRow::error() const {
  const double mean = real_mean();
  return mean > 0 ? (predicted - mean) / mean : (predicted == 0 ? 0 : INFINITY);
}

std::string FidelityRow::verdict() const {
  const double e = std::abs(error());
  if (e <= spread()) return "inside spread";
  return e <= goal ? "pass" : "MISS";
}

double median_abs_error(const std::vector<FidelityRow>& rows) {
  std::vector<double> e;
  for (const FidelityRow& r : rows) e.push_back(std::abs(r.error()));
  return quantile(std::move(e), 0.5);
}

std::string format_fidelity_table(const std::vector<FidelityRow>& rows) {
  std::string out;
  char line[200];
  std::snprintf(line, sizeof line, "%-26s %12s %8s %12s %8s %8s  %s\n", "figure", "real (mean)",
                "spread", "predicted", "spread", "error", "verdict (goal)");
  out += line;
  for (const FidelityRow& r : rows) {
    std::snprintf(line, sizeof line, "%-26s %12.2f %8s %12.2f %8s %8s  %s (%s)\n", r.figure.c_str(),
                  r.real_mean(), fidelity_pct(r.spread(), false).c_str(), r.predicted,
                  fidelity_pct(r.predicted_spread(), false).c_str(),
                  fidelity_pct(r.error(), true).c_str(), r.verdict().c_str(),
                  fidelity_pct(r.goal, false).c_str());
    out += line;
  }
  out += "median |error| over the table: " + fidelity_pct(median_abs_error(rows), false) +
         " (goal <= 5.0%)\n";
  return out;
}

std::string format_fidelity(const FidelityResult& r) {
  std::ostringstream out;
  out << "fidelity of " << r.profile << " against " << r.url << " on " << r.trace << " ("
      << r.num_requests << " requests, " << r.real_runs << " real runs, " << r.sim_runs
      << " replays)\n"
      << format_fidelity_table(r.rows) << "preemptions: real " << r.real_preemptions
      << " per run (vllm:num_preemptions_total), predicted " << r.predicted_preemptions
      << " per replay\n";
  if (r.as_run) {
    const FidelityAsRun& s = *r.as_run;
    out << "the server's " << s.steps << " steps during the real runs took " << s.took_s << " s ("
        << s.execute_s << " s in execute(), " << s.host_gaps_s << " s of host time in gaps under "
        << s.gap_limit_ms << " ms); the profile prices them at " << s.priced_s << " s ("
        << fidelity_pct(s.error, true) << ")\n"
        << "with a profile fitted to those steps (|error| median "
        << fidelity_pct(s.fit.median_abs_error, false) << ", p90 "
        << fidelity_pct(s.fit.p90_abs_error, false) << "): median |error| over the table "
        << fidelity_pct(median_abs_error(s.rows), false) << " (" << p50_p90_errors(s.rows) << ")\n";
  }
  return out.str();
}

nlohmann::ordered_json fidelity_json(const FidelityResult& r) {
  nlohmann::ordered_json j;
  j["trace"] = r.trace;
  j["profile"] = r.profile;
  j["url"] = r.url;
  j["real_runs"] = r.real_runs;
  j["sim_runs"] = r.sim_runs;
  j["median_abs_error"] = median_abs_error(r.rows);
  j["real_preemptions_per_run"] = r.real_preemptions;
  j["predicted_preemptions"] = r.predicted_preemptions;
  j["rows"] = table_json(r.rows);
  if (r.as_run) {
    const FidelityAsRun& s = *r.as_run;
    j["server_steps"] = {{"steps", s.steps},         {"took_s", s.took_s},
                         {"execute_s", s.execute_s}, {"host_gaps_s", s.host_gaps_s},
                         {"priced_s", s.priced_s},   {"error", s.error}};
    j["step_costs_as_run"] = {{"fit",
                               {{"steps", s.fit.steps},
                                {"median_abs_error", s.fit.median_abs_error},
                                {"p90_abs_error", s.fit.p90_abs_error},
                                {"scatter", s.scatter}}},
                              {"median_abs_error", median_abs_error(s.rows)},
                              {"rows", table_json(s.rows)}};
  }
  return j;
}

}  // namespace llm
