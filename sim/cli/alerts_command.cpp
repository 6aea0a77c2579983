#include "sim/cli/alerts_command.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>

#include "core/flag_set.h"
#include "core/pending_file.h"
#include "sim/alerts/alert_timeline.h"
#include "sim/alerts/alerts_result.h"
#include "sim/alerts/rule_coverage.h"
#include "sim/alerts/rule_file.h"
#include "sim/report/alert_section.h"
#include "sim/report/html_report.h"
#include "sim/time_text.h"

namespace llm {

namespace fs = std::filesystem;

std::string alerts_usage() {
  return R"(usage: llmsim alerts TRACE --rules FILE.yml [flags] [llmsim replay flags]

Replays TRACE (as llmsim replay), loads the simulated Prometheus series into a private Prometheus
(promtool backfill, prometheus on 127.0.0.1, stopped at the end), evaluates every alerting rule of
FILE at each evaluation time of the replay and prints when each alert went pending, fired and
resolved, in trace time and UTC (--start-time is trace time 0).

Every selector of every rule is checked against the replay's series, and the replay's length
against each rule's for + evaluation interval + longest range: a rule that matches nothing or
needs a longer replay gets a warning (an error with --strict).

Alerts:
  --rules FILE                     Prometheus rule file (checked with promtool check rules)
  --evaluation-interval D          for groups without an interval (1m, as Prometheus's default)
  --fail-on-fire                   exit 1 when any alert fired
  --expect-fire ALERT              exit 1 unless ALERT fired (repeatable)
  --expect-quiet ALERT             exit 1 if ALERT fired, or if a selector of it matches no series
                                   (its quiet would prove nothing) (repeatable)
  --strict                         exit 1 when a rule cannot be judged on this replay (a selector
                                   matches no series, or the replay is too short for it)
  --timeline-json FILE             the timeline as JSON
  --report FILE                    the replay's HTML report with the alerts' pending and firing
                                   windows on a timeline
  --promtool PATH                  promtool to run (promtool on PATH)
  --prometheus PATH                prometheus to run (prometheus on PATH)

Replay flags (--metrics-out keeps the series; samples every --scrape-interval, 5s; --fault to
test the paging alerts: engine-down makes up 0, http-5xx counts 5xx in http_requests_total):

)" + replay_usage().substr(replay_usage().find("\n\n") + 2);
}

AlertsOptions parse_alerts_args(const std::vector<std::string>& args) {
  AlertsOptions o;
  FlagSet flags("llmsim alerts");
  flags.nonempty({"--rules"}, o.rules_path)
      .value(
          {"--evaluation-interval"},
          [&o](const std::string& flag, const std::string& v) {
            const auto ns = parse_duration_ns(v);
            if (!ns || *ns % 1'000'000 != 0) {
              throw UsageError(flag + ": expected a duration such as 15s or 1m, got '" + v + "'");
            }
            o.evaluation_interval_ns = *ns;
          })
      .boolean({"--fail-on-fire"}, o.expect.fail_on_fire)
      .boolean({"--strict"}, o.expect.strict)
      .value({"--expect-fire"},
             [&o](const std::string& flag, const std::string& v) {
               if (v.empty()) throw UsageError(flag + ": empty alert name");
               o.expect.expect_fire.push_back(v);
             })
      .value({"--expect-quiet"},
             [&o](const std::string& flag, const std::string& v) {
               if (v.empty()) throw UsageError(flag + ": empty alert name");
               o.expect.expect_quiet.push_back(v);
             })
      .nonempty({"--timeline-json"}, o.timeline_json)
      .nonempty({"--promtool"}, o.tools.promtool)
      .nonempty({"--prometheus"}, o.tools.prometheus);
  // This command's flags here, the others (and TRACE) to llmsim replay's parser.
  static const std::set<std::string> kValueFlags = {
      "--rules",    "--evaluation-interval", "--expect-fire", "--expect-quiet", "--timeline-json",
      "--promtool", "--prometheus"};
  std::vector<std::string> mine, replay_args;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      replay_args.insert(replay_args.end(), args.begin() + static_cast<long>(i), args.end());
      break;
    }
    const std::string name = a.substr(0, a.find('='));
    if (name == "--fail-on-fire" || name == "--strict") {
      mine.push_back(a);
    } else if (kValueFlags.count(name)) {
      mine.push_back(a);
      if (a == name && i + 1 < args.size()) mine.push_back(args[++i]);
    } else {
      replay_args.push_back(a);
    }
  }
  flags.parse(mine);
  try {
    o.replay = parse_replay_args(replay_args);
  } catch (const UsageError& e) {
    // The replay flags are this command's too: point at its help, which lists them all.
    throw as_part_of(e, "llmsim replay", "llmsim alerts", flags.names());
  }
  if (o.rules_path.empty()) throw UsageError("--rules: required (a Prometheus rule file)");
  return o;
}

int64_t last_openmetrics_sample_ns(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open file");
  std::string line;
  double last = -1;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find_last_of(' ');
    if (space == std::string::npos) continue;
    last = std::max(last, std::strtod(line.c_str() + space + 1, nullptr));
  }
  if (last < 0) throw std::runtime_error(path + ": no samples (the replay recorded no series)");
  return std::llround(last * 1000) * 1'000'000;
}

namespace {

// A folder under $TMPDIR (or /tmp) removed at the end of the command.
class WorkDir {
 public:
  WorkDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/llmsim-alerts-XXXXXX";
    if (!mkdtemp(pattern.data())) {
      throw std::runtime_error("cannot create a work folder " + pattern);
    }
    path_ = pattern;
  }
  ~WorkDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The replay's report with a section of the alert windows, in trace seconds.
void write_alerts_report(PendingFile& file, HtmlReport report, const std::vector<std::string>& args,
                         const AlertsResult& result) {
  const std::vector<AlertRuleTimeline>& alerts = result.alerts;
  const int64_t start_ns = result.start_ns;
  const auto trace_s = [start_ns](int64_t t) { return static_cast<double>(t - start_ns) / 1e9; };
  std::vector<AlertWindow> windows;
  for (const AlertRuleTimeline& a : alerts) {
    for (const AlertLabelSetTimeline& set : a.label_sets) {
      for (const AlertEpisode& e : set.episodes) {
        AlertWindow w;
        w.alert = a.alert;
        w.labels = set.labels;
        w.pending_s = trace_s(e.pending_ns);
        if (e.fired_ns) w.fired_s = trace_s(*e.fired_ns);
        if (e.resolved_ns) w.resolved_s = trace_s(*e.resolved_ns);
        windows.push_back(std::move(w));
      }
    }
  }
  report.title = "llmsim alerts";
  std::vector<std::string> command = {"alerts"};
  command.insert(command.end(), args.begin(), args.end());
  report.command_line = shell_command_line("llmsim", command);
  int fired = 0;
  for (const AlertRuleTimeline& a : alerts) fired += a.ever_fired() ? 1 : 0;
  report.facts.insert(report.facts.begin(), {"Alerts fired", std::to_string(fired) + " of " +
                                                                 std::to_string(alerts.size())});
  std::vector<FaultBar> faults;
  for (const FaultWindow& f : result.faults) {
    faults.push_back({fault_spec_text(f) + " (" + fault_description(f) + ")",
                      static_cast<double>(f.from_ns) / 1e9, static_cast<double>(f.to_ns) / 1e9});
  }
  report.sections.insert(report.sections.begin(),
                         alert_section(windows, trace_s(result.end_ns), faults));
  file.stream() << render_html_report(report);
  file.commit();
}

// --expect-fire and --expect-quiet name alerts of the rule file. Throws UsageError.
void check_expected_alerts_exist(const AlertsOptions& o, const PromRuleFile& rules) {
  std::set<std::string> names;
  for (const auto& g : rules.groups) {
    for (const auto& r : g.rules) {
      if (!r.alert.empty()) names.insert(r.alert);
    }
  }
  for (const auto* list : {&o.expect.expect_fire, &o.expect.expect_quiet}) {
    for (const std::string& n : *list) {
      if (names.count(n)) continue;
      std::string known;
      for (const auto& k : names) known += (known.empty() ? "" : ", ") + k;
      throw UsageError(
          std::string(list == &o.expect.expect_fire ? "--expect-fire" : "--expect-quiet") +
          ": no alert " + n + " in " + o.rules_path +
          " (its alerts: " + (known.empty() ? "none" : known) + ")");
    }
  }
}

// Every alerting rule evaluated with a private Prometheus over the replay's series (from trace
// time 0 to its last sample), every selector looked up in the same series, and the checks judged
// on the timelines.
AlertsResult evaluate_alerts(const AlertsOptions& o, const PromRuleFile& rules,
                             const ReplayOptions& replay, const WorkDir& work) {
  AlertsResult result;
  result.start_ns = replay.start_time_unix_ns;
  result.end_ns = last_openmetrics_sample_ns(replay.metrics_out);
  result.faults = replay.faults;
  result.strict = o.expect.strict;
  {
    LocalPrometheus prometheus(o.tools, replay.metrics_out, work.path());
    result.alerts = evaluate_alert_rules(
        rules, o.evaluation_interval_ns, result.start_ns, result.end_ns,
        [&prometheus](const std::string& expr, int64_t s, int64_t e, int64_t step) {
          return prometheus.query_range(expr, s, e, step);
        });
    result.coverage = rule_coverage(
        rules, o.evaluation_interval_ns, [&prometheus, &result](const std::string& selector) {
          return prometheus.has_series(selector, result.start_ns, result.end_ns);
        });
  }
  result.checks = check_alerts(result, o.expect);
  return result;
}

// One line on stderr when rules cannot be judged: a warning, an error with --strict.
void report_problems(const AlertsResult& result, std::ostream& err) {
  const std::vector<std::string> names = alerts_with_problems(result);
  if (names.empty()) return;
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  err << "llmsim alerts: " << (result.strict ? "error" : "warning") << ": " << names.size()
      << " rule" << (names.size() == 1 ? "" : "s")
      << " cannot be judged on this replay (a selector matches no series, or the replay is too "
         "short; see the timeline): "
      << list << "\n";
}

}  // namespace

int run_alerts_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (wants_help(args)) {
    out << alerts_usage();
    return 0;
  }
  AlertsOptions o;
  PromRuleFile rules;
  std::unique_ptr<PendingFile> report_file;    // --report: the replay's report and the windows
  std::unique_ptr<PendingFile> timeline_file;  // --timeline-json
  try {
    o = parse_alerts_args(args);
    rules = read_rule_file(o.rules_path);
    if (!o.replay.report.empty()) {
      report_file = std::make_unique<PendingFile>("--report", o.replay.report);
    }
    if (!o.timeline_json.empty()) {
      timeline_file = std::make_unique<PendingFile>("--timeline-json", o.timeline_json);
    }
    check_expected_alerts_exist(o, rules);
  } catch (const UsageError& e) {
    return report_usage_error(err, "llmsim alerts", e);
  } catch (const RuleFileError& e) {
    err << "llmsim alerts: --rules: " << e.what() << "\n";
    return kUsageExitCode;
  }
  try {
    WorkDir work;
    const std::string check = promtool_check_rules(o.tools, o.rules_path, work.path());
    if (!check.empty()) {
      err << "llmsim alerts: --rules: promtool check rules " << o.rules_path << " failed:\n"
          << check << "\n";
      return kUsageExitCode;
    }
    ReplayOptions replay = o.replay;
    if (replay.metrics_out.empty()) replay.metrics_out = work.path() + "/replay.om";
    replay.progress = false;
    HtmlReport report;
    const int code = execute_replay(replay, out, err, {}, report_file ? &report : nullptr);
    if (code != 0) return code;
    const AlertsResult result = evaluate_alerts(o, rules, replay, work);
    out << format_alerts_timeline(result);
    if (report_file) {
      write_alerts_report(*report_file, report, args, result);
    }
    if (timeline_file) {
      timeline_file->stream() << alerts_json(result);
      timeline_file->commit();
    }
    out << format_alert_checks(result);
    report_problems(result, err);
    return alerts_exit_code(result);
  } catch (const std::invalid_argument& e) {  // a rule that cannot be evaluated
    err << "llmsim alerts: --rules: " << e.what() << "\n";
    return kUsageExitCode;
  } catch (const std::exception& e) {
    err << "llmsim alerts: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace llm
