#include "sim/alerts/alert_timeline.h"

#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/time_text.h"

namespace llm {

std::string utc_timestamp_text(int64_t unix_ns) {
  int64_t seconds = unix_ns / 1'000'000'000;
  int64_t ms = (unix_ns % 1'000'000'000) / 1'000'000;
  if (ms < 0) {
    ms += 1000;
    --seconds;
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::string s = buf;
  if (ms != 0) {
    char frac[8];
    std::snprintf(frac, sizeof frac, ".%03d", static_cast<int>(ms));
    s += frac;
  }
  return s + "Z";
}

namespace {

std::string label_set_text(const PromLabels& labels) {
  std::string s;
  for (const auto& [k, v] : labels) {
    if (k == "alertname") continue;
    s += (s.empty() ? "" : ", ") + k + "=\"" + v + "\"";
  }
  return "{" + s + "}";
}

std::string when(const std::optional<int64_t>& t, int64_t start_ns) {
  if (!t) return "-";
  return trace_time_text(*t, start_ns) + " (" + utc_timestamp_text(*t) + ")";
}

}  // namespace

std::string format_alert_timeline(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                  int64_t end_ns, const TimelineNotes& notes) {
  std::ostringstream out;
  out << "alerts evaluated from " << utc_timestamp_text(start_ns) << " (trace time 0s) to "
      << utc_timestamp_text(end_ns) << " (" << trace_time_text(end_ns, start_ns) << ")\n";
  for (const std::string& line : notes.header) out << line << "\n";
  int fired = 0;
  for (const AlertRuleTimeline& a : alerts) {
    if (a.ever_fired()) ++fired;
    out << "\n"
        << a.alert << " (group " << a.group << ", every " << trace_time_text(a.interval_ns, 0)
        << ", for " << trace_time_text(a.for_ns, 0);
    if (a.keep_firing_for_ns > 0) {
      out << ", keep_firing_for " << trace_time_text(a.keep_firing_for_ns, 0);
    }
    out << "): "
        << (a.ever_fired()         ? "FIRED"
            : a.label_sets.empty() ? "quiet"
                                   : "pending only")
        << "\n";
    const auto alert_notes = notes.by_alert.find(a.alert);
    if (alert_notes != notes.by_alert.end()) {
      for (const std::string& line : alert_notes->second) out << "  " << line << "\n";
    }
    for (const AlertLabelSetTimeline& s : a.label_sets) {
      for (const AlertEpisode& e : s.episodes) {
        out << "  " << label_set_text(s.labels) << "\n"
            << "    pending  " << when(e.pending_ns, start_ns) << "\n"
            << "    fired    " << when(e.fired_ns, start_ns) << "\n"
            << "    resolved "
            << (e.resolved_ns ? when(e.resolved_ns, start_ns) : std::string("- (still active)"))
            << "\n";
      }
    }
  }
  out << "\n" << fired << " of " << alerts.size() << " alerts fired\n";
  for (const std::string& line : notes.footer) out << line << "\n";
  return out.str();
}

std::string alert_timeline_json(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                int64_t end_ns) {
  return alert_timeline_doc(alerts, start_ns, end_ns).dump(2) + "\n";
}

nlohmann::json alert_timeline_doc(const std::vector<AlertRuleTimeline>& alerts, int64_t start_ns,
                                  int64_t end_ns) {
  auto seconds = [start_ns](const std::optional<int64_t>& t) -> nlohmann::json {
    if (!t) return nullptr;
    return static_cast<double>(*t - start_ns) / 1e9;
  };
  auto stamp = [](const std::optional<int64_t>& t) -> nlohmann::json {
    if (!t) return nullptr;
    return utc_timestamp_text(*t);
  };
  nlohmann::json doc;
  doc["start"] = utc_timestamp_text(start_ns);
  doc["end"] = utc_timestamp_text(end_ns);
  doc["end_s"] = static_cast<double>(end_ns - start_ns) / 1e9;
  doc["alerts"] = nlohmann::json::array();
  for (const AlertRuleTimeline& a : alerts) {
    nlohmann::json j;
    j["alert"] = a.alert;
    j["group"] = a.group;
    j["interval_s"] = static_cast<double>(a.interval_ns) / 1e9;
    j["for_s"] = static_cast<double>(a.for_ns) / 1e9;
    j["keep_firing_for_s"] = static_cast<double>(a.keep_firing_for_ns) / 1e9;
    j["fired"] = a.ever_fired();
    j["episodes"] = nlohmann::json::array();
    for (const AlertLabelSetTimeline& s : a.label_sets) {
      for (const AlertEpisode& e : s.episodes) {
        j["episodes"].push_back({{"labels", s.labels},
                                 {"pending_s", seconds(e.pending_ns)},
                                 {"fired_s", seconds(e.fired_ns)},
                                 {"resolved_s", seconds(e.resolved_ns)},
                                 {"pending_at", stamp(e.pending_ns)},
                                 {"fired_at", stamp(e.fired_ns)},
                                 {"resolved_at", stamp(e.resolved_ns)}});
      }
    }
    doc["alerts"].push_back(j);
  }
  return doc;
}

}  // namespace llm
