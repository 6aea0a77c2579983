#include "sim/capacity/capacity_report.h"

#include <cmath>
#include <cstdio>

namespace llm {
namespace {

std::string half_line(const char* what, double early, double late, const std::string& unit,
                      double scale = 1.0) {
  return std::string("  ") + what + ": " + capacity_number(early * scale) + unit +
         " in the first half, " + capacity_number(late * scale) + unit + " in the second\n";
}

}  // namespace

std::string capacity_number(double value, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::string format_capacity_signals(const WindowFigures& w, int64_t engines) {
  const CapacitySignal signal = classify_capacity(w);
  std::string text = "capacity signals at the busiest hour (";
  text += w.window.whole_trace ? std::string("the whole trace, shorter than an hour")
                               : "trace time " + capacity_number(w.window.begin * 1e-9, "%.0f") +
                                     "-" + capacity_number(w.window.end * 1e-9, "%.0f") + " s";
  text += ", " + std::to_string(w.window.arrivals) + " arrivals) with " + std::to_string(engines) +
          " engine(s):\n";
  text += half_line("waiting requests (time-weighted mean, all engines)", w.early.mean_waiting,
                    w.late.mean_waiting, "");
  text += "  peak KV-cache usage: " + capacity_number(w.peak_kv_usage * 100, "%.1f") +
          "%, preemptions: " + std::to_string(w.preemptions) +
          ", peak waiting: " + std::to_string(w.peak_waiting) + "\n";
  text +=
      half_line("prefill time (mean)", w.early.mean_prefill_s, w.late.mean_prefill_s, " ms", 1e3);
  text +=
      half_line("prompt length (mean)", w.early.mean_prompt_len, w.late.mean_prompt_len, " tokens");
  text +=
      half_line("prefix-cache hit rate", w.early.prefix_hit_rate, w.late.prefix_hit_rate, "%", 100);
  text +=
      half_line("inter-token latency (mean)", w.early.mean_itl_s, w.late.mean_itl_s, " ms", 1e3);
  text += std::string("  pattern: ") + capacity_pattern_name(signal.pattern) + ": " +
          capacity_pattern_reading(signal.pattern) + "\n";
  text += "  response: " + capacity_pattern_response(signal.pattern) + "\n";
  return text;
}

std::string format_what_if(const std::string& name, const CapacityPoint& r) {
  std::string figures;
  for (const SloResult& s : r.slo) {
    figures += (figures.empty() ? "" : ", ") + s.key + " " + format_figure(s.key, s.value) +
               (s.met ? " met" : " MISSED");
  }
  return "  " + name + ": " + figures + "; busiest hour: preemptions " +
         std::to_string(r.window.preemptions) + ", peak KV " +
         capacity_number(r.window.peak_kv_usage * 100, "%.1f") + "%; KV blocks " +
         std::to_string(r.summary.num_gpu_blocks) + (r.met ? "  (meets the SLOs)" : "") + "\n";
}

nlohmann::ordered_json capacity_summary_json(const CapacityPoint* p) {
  if (!p) return nullptr;
  return nlohmann::ordered_json::parse(format_summary_json(p->summary));
}

nlohmann::ordered_json capacity_slo_json(const CapacityPoint* p) {
  if (!p) return nullptr;
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const SloResult& r : p->slo) {
    j[r.key] = {{"value", std::isfinite(r.value) ? nlohmann::ordered_json(r.value) : nullptr},
                {"target", r.target},
                {"met", r.met}};
  }
  return j;
}

nlohmann::ordered_json capacity_signals_json(const WindowFigures& w, int64_t engines) {
  return {{"engines", engines},
          {"whole_trace", w.window.whole_trace},
          {"window_begin_s", w.window.begin * 1e-9},
          {"window_end_s", w.window.end * 1e-9},
          {"arrivals", w.window.arrivals},
          {"pattern", capacity_pattern_name(classify_capacity(w).pattern)},
          {"mean_waiting", {w.early.mean_waiting, w.late.mean_waiting}},
          {"mean_prefill_s", {w.early.mean_prefill_s, w.late.mean_prefill_s}},
          {"mean_itl_s", {w.early.mean_itl_s, w.late.mean_itl_s}},
          {"peak_kv_usage", w.peak_kv_usage},
          {"preemptions", w.preemptions}};
}

}  // namespace llm
