#include "calibrate/step_pricing.h"

#include <cmath>
#include <cstdio>
#include <map>

#include "core/sample_stats.h"

namespace llm {

namespace {

constexpr const char* kKindOrder[] = {"decode b=1",    "decode b=2-4",   "decode b=5-8",
                                      "decode b=9-16", "decode b=17-32", "decode b=33+",
                                      "prefill",       "mixed"};
constexpr const char* kContextOrder[] = {"decode ctx<256", "decode ctx256-1023",
                                         "decode ctx1024-4095", "decode ctx4096+"};

bool decode_only(const BatchCost& b) { return b.new_tokens == b.num_sequences; }

struct Group {
  std::vector<double> measured_ms, predicted_ms, errors;
  double measured_s = 0, predicted_s = 0;
  void add(double measured_ns, double predicted_ns) {
    measured_ms.push_back(measured_ns / 1e6);
    predicted_ms.push_back(predicted_ns / 1e6);
    if (measured_ns > 0) errors.push_back(predicted_ns / measured_ns - 1);
    measured_s += measured_ns / 1e9;
    predicted_s += predicted_ns / 1e9;
  }
  StepGroupPricing summary(const std::string& kind) const {
    StepGroupPricing g;
    g.kind = kind;
    g.steps = static_cast<int64_t>(measured_ms.size());
    g.measured_p50_ms = quantile(measured_ms, 0.5);
    g.predicted_p50_ms = quantile(predicted_ms, 0.5);
    g.error_p50 = quantile(errors, 0.5);
    g.measured_total_s = measured_s;
    g.predicted_total_s = predicted_s;
    return g;
  }
};

template <size_t N>
std::vector<StepGroupPricing> ordered(const std::map<std::string, Group>& groups,
                                      const char* const (&order)[N]) {
  std::vector<StepGroupPricing> out;
  for (const char* kind : order) {
    const auto it = groups.find(kind);
    if (it != groups.end()) out.push_back(it->second.summary(kind));
  }
  return out;
}

// A percentage as printed: errors that round to zero print as +0.0%, never -0.0%.
double printed_percent(double fraction) {
  const double percent = 100 * fraction;
  return std::fabs(percent) < 0.05 ? 0.0 : percent;
}

std::string row(const StepGroupPricing& g) {
  char line[200];
  std::snprintf(line, sizeof line, "%-20s %7lld %10.2f %10.2f %+9.1f%% %10.2f %10.2f %+9.1f%%\n",
                g.kind.c_str(), static_cast<long long>(g.steps), g.measured_p50_ms,
                g.predicted_p50_ms, printed_percent(g.error_p50), g.measured_total_s,
                g.predicted_total_s, printed_percent(g.total_error()));
  return line;
}

std::string table(const char* title, const std::vector<StepGroupPricing>& groups) {
  std::string s = title;
  s += "\nkind                   steps   meas p50   pred p50  err p50   meas sum   pred sum  err "
       "sum\n";
  s += "                                   (ms)       (ms)              (s)        (s)\n";
  for (const StepGroupPricing& g : groups) s += row(g);
  return s;
}

}  // namespace

std::string step_kind(const BatchCost& b) {
  if (decode_only(b)) {
    const int64_t n = b.num_sequences;
    if (n <= 1) return "decode b=1";
    if (n <= 4) return "decode b=2-4";
    if (n <= 8) return "decode b=5-8";
    if (n <= 16) return "decode b=9-16";
    if (n <= 32) return "decode b=17-32";
    return "decode b=33+";
  }
  return b.num_sequences == 1 ? "prefill" : "mixed";
}

std::string decode_context_kind(const BatchCost& b) {
  if (!decode_only(b) || b.num_sequences <= 0) return "";
  const int64_t mean = b.context_tokens / b.num_sequences;
  if (mean < 256) return "decode ctx<256";
  if (mean < 1024) return "decode ctx256-1023";
  if (mean < 4096) return "decode ctx1024-4095";
  return "decode ctx4096+";
}

StepPricing price_steps(const std::vector<StepRecord>& steps, const FittedStepModel& model,
                        const StepTimeNoise* noise, int64_t engine, double gap_limit_ms) {
  std::map<std::string, Group> kinds, contexts;
  uint64_t draws = 0;
  Group all;
  std::vector<double> gaps_ms;
  double gap_total_s = 0;
  for (const StepRecord& r : steps) {
    if (engine >= 0 && r.engine != engine) continue;
    const double measured = static_cast<double>(r.execute_ns + r.modelled_ns);
    double predicted = static_cast<double>(fitted_step_time_ns(model, r.batch));
    if (noise) predicted *= step_noise_draw(*noise, 0, draws++);
    kinds[step_kind(r.batch)].add(measured, predicted);
    const std::string ctx = decode_context_kind(r.batch);
    if (!ctx.empty()) contexts[ctx].add(measured, predicted);
    all.add(measured, predicted);
    if (r.gap_ns >= 0 && r.gap_ns < gap_limit_ms * 1e6) {
      gaps_ms.push_back(r.gap_ns / 1e6);
      gap_total_s += r.gap_ns / 1e9;
    }
  }
  StepPricing p;
  p.by_kind = ordered(kinds, kKindOrder);
  p.by_context = ordered(contexts, kContextOrder);
  p.all = all.summary("all");
  p.gap_limit_ms = gap_limit_ms;
  p.short_gaps = static_cast<int64_t>(gaps_ms.size());
  p.short_gap_p50_ms = quantile(gaps_ms, 0.5);
  p.short_gap_total_s = gap_total_s;
  return p;
}

std::string format_step_pricing(const StepPricing& p) {
  std::vector<StepGroupPricing> kinds = p.by_kind;
  kinds.push_back(p.all);
  std::string s = table("Steps by kind (error = predicted vs measured):", kinds);
  s += "\n" + table("Decode-only steps by mean context per sequence:", p.by_context);
  char line[300];
  const double share =
      p.all.measured_total_s > 0 ? 100 * p.short_gap_total_s / p.all.measured_total_s : 0;
  std::snprintf(line, sizeof line,
                "\nHost time between steps (gaps under %.1f ms, which no step model prices): %lld "
                "gaps, p50 %.3f ms, %.2f s in all = %.1f%% of the measured step time\n",
                p.gap_limit_ms, static_cast<long long>(p.short_gaps), p.short_gap_p50_ms,
                p.short_gap_total_s, share);
  s += line;
  return s;
}

}  // namespace llm
