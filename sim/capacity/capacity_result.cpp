#include "sim/capacity/capacity_result.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <sstream>

#include "sim/replay/summary_figures.h"

namespace llm {
namespace {

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    out += prefix + text.substr(start, end - start + 1);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

std::string evaluated_line(const SearchOutcome& outcome, const char* unit,
                           const std::function<std::string(int64_t)>& label, bool true_is_met) {
  std::string text;
  for (const SearchPoint& p : outcome.evaluated) {
    const bool met = p.value == true_is_met;
    text += (text.empty() ? "" : ", ") + label(p.x) + unit + " " + (met ? "met" : "missed");
  }
  return text;
}

// The first lines: the trace, the SLOs, and each candidate's answer when there are several.
std::string format_capacity_header(const CapacityResult& r) {
  std::ostringstream out;
  std::string slo_text;
  for (const SloTarget& t : r.slo) {
    slo_text += (slo_text.empty() ? "" : ", ") + t.key +
                (lower_is_better(t.key) ? " <= " : " >= ") + format_figure(t.key, t.target);
  }
  out << "capacity: " << r.trace_path << " (" << r.num_requests << " requests), SLO " << slo_text
      << ", routing " << r.routing_policy << "\n";
  if (r.candidates.size() > 1) {
    out << "candidates:\n";
    for (size_t i = 0; i < r.candidates.size(); ++i) {
      const auto& answer = r.candidates[i].engines.outcome.first_true;
      out << "  " << describe_settings(r.candidates[i].settings) << ": "
          << (answer ? std::to_string(*answer) + " engine(s)"
                     : "none up to " + std::to_string(r.max_engines) + " engines")
          << (i == r.best ? "  <- answer" : "") << "\n";
    }
  }
  return out.str();
}

// 1. The fewest engines: the SLOs at the answer and one below, the replayed points, monotonicity.
std::string format_engine_search(const CapacityResult& r) {
  std::ostringstream out;
  const CapacityCandidate& chosen = r.shown();
  const SearchOutcome& outcome = chosen.engines.outcome;
  const std::optional<int64_t> engines = r.engines();
  if (!engines) {
    out << "engines: none: " << r.max_engines << " engines (--max-engines) still miss the SLOs"
        << (r.candidates.size() > 1 ? " with every candidate" : "") << "\n";
  } else {
    out << "engines: " << *engines << " (data parallel, each with its own KV cache)"
        << (chosen.settings.empty() ? "" : " with " + describe_settings(chosen.settings)) << "\n";
    out << "at " << *engines << " engine(s):\n"
        << indent(format_slo_results(r.at_answer()->slo), "  ");
    if (const CapacityPoint* below = r.below_answer()) {
      out << "one step below, at " << *engines - 1 << " engine(s):\n"
          << indent(format_slo_results(below->slo), "  ");
    } else {
      out << "one step below: none (one engine is the fewest)\n";
    }
  }
  if (const std::optional<int64_t> gpus = r.gpus()) {
    out << "gpus: " << *gpus << " (" << *engines << " engine(s) x tensor parallel "
        << r.tensor_parallel << "); " << capacity_number(*r.gpu_hours()) << " GPU-hours over the "
        << capacity_number(r.at_answer()->summary.duration_s / 3600.0) << " h replayed";
    if (const std::optional<double> cost = r.cost()) {
      out << "; cost " << capacity_number(*cost) << " at " << capacity_number(*r.gpu_hour_cost)
          << " per GPU-hour";
      if (!r.gpu_hour_cost_source.empty()) {
        out << " (" << r.gpu_hour_cost_source << "; --gpu-hour-cost C to use yours)";
      }
    }
    out << "\n";
  }
  const auto engines_label = [](int64_t n) { return std::to_string(n); };
  out << "replayed: " << evaluated_line(outcome, " engine(s)", engines_label, true) << "\n";
  if (!outcome.violation_true) {
    out << "monotone: yes at the replayed points (more engines never missed where fewer met)\n";
  } else {
    out << "monotone: NO: " << outcome.violation_true->x << " engine(s) meet the SLOs but "
        << outcome.violation_false->x
        << " miss them; the answer is the search's, a smaller one may exist\n";
  }
  for (const FigureReversal& f : figure_reversals(chosen.engines.points)) {
    out << "figure not monotone: " << f.key << " " << format_figure(f.key, f.from_value) << " at "
        << f.from << " engine(s), " << format_figure(f.key, f.to_value) << " at " << f.to
        << " (worse with more engines)\n";
  }
  return out.str();
}

// 2. The largest arrival-rate scale one engine sustains.
std::string format_scale_search(const CapacityResult& r) {
  std::ostringstream out;
  const SearchOutcome& outcome = r.scale.outcome;
  const auto scale_label = [&r](int64_t x) { return capacity_number(scale_at(r.base_scale, x)); };
  const std::optional<double> sustained = r.sustained_scale();
  if (outcome.true_at_min) {
    out << "one engine: misses the SLOs even at " << scale_label(-kScaleSteps)
        << "x the trace's arrival rate\n";
  } else if (!outcome.first_true) {
    out << "one engine: meets the SLOs up to " << capacity_number(*sustained)
        << "x the arrival rate (the search's bound)\n";
  } else {
    out << "one engine sustains " << capacity_number(*sustained)
        << "x the trace's arrival rate (misses at " << scale_label(*outcome.first_true)
        << "x; steps of 2^(1/32); " << r.scale.points.size() << " loads replayed)\n";
  }
  if (sustained) {
    out << "  that is " << capacity_number(*sustained * r.trace_rate_per_s) << " requests/s";
    if (r.base_scale != 1.0) {
      out << ", " << capacity_number(*sustained / r.base_scale)
          << "x the load asked for (--arrival-rate-scale " << capacity_number(r.base_scale) << ": "
          << capacity_number(r.base_scale * r.trace_rate_per_s) << " requests/s)";
    }
    out << "\n";
  }
  if (outcome.violation_true) {
    out << "  monotone: NO: one engine misses at " << scale_label(outcome.violation_true->x)
        << "x but meets at " << scale_label(outcome.violation_false->x) << "x\n";
  }
  return out.str();
}

// 3. The busiest hour's signals and the memory what-ifs.
std::string format_signals_and_what_ifs(const CapacityResult& r) {
  std::ostringstream out;
  const int64_t signal_engines = r.signal_engines();
  const CapacityPoint& at = r.shown().engines.points.at(signal_engines);
  out << format_capacity_signals(at.window, signal_engines, at.met);
  out << "what-ifs replayed with " << signal_engines << " engine(s):\n";
  if (r.kv_blocks_fixed) {
    out << "  (--num-gpu-blocks-override fixes the KV blocks: these what-ifs cannot add any)\n";
  }
  for (const CapacityWhatIf& w : r.what_ifs) {
    const std::string name = "--" + w.flag + " " + w.value;
    if (!w.error.empty()) {
      out << "  " << name << ": cannot run: " << w.error << "\n";
      continue;
    }
    out << format_what_if(name, w.point);
  }
  return out.str();
}

}  // namespace

double scale_at(double base, int64_t step) {
  return base * std::exp2(static_cast<double>(step) / kScaleStepsPerDoubling);
}

std::string describe_settings(const CapacitySettings& settings) {
  std::string text;
  for (const auto& [flag, value] : settings) {
    text += (text.empty() ? "--" : " --") + flag + " " + value;
  }
  return text.empty() ? "(the given engine arguments)" : text;
}

const CapacityCandidate& CapacityResult::shown() const {
  return candidates[best == candidates.size() ? 0 : best];
}

std::optional<int64_t> CapacityResult::engines() const {
  return shown().engines.outcome.first_true;
}

const CapacityPoint* CapacityResult::at_answer() const {
  const std::optional<int64_t> n = engines();
  return n ? &shown().engines.points.at(*n) : nullptr;
}

const CapacityPoint* CapacityResult::below_answer() const {
  const std::optional<int64_t> n = engines();
  const std::map<int64_t, CapacityPoint>& points = shown().engines.points;
  if (!n) return &points.at(max_engines);
  if (*n > 1 && points.count(*n - 1)) return &points.at(*n - 1);
  return nullptr;
}

std::optional<double> CapacityResult::sustained_scale() const {
  if (scale.outcome.true_at_min) return std::nullopt;
  if (!scale.outcome.first_true) return scale_at(base_scale, kScaleSteps);
  return scale_at(base_scale, *scale.outcome.first_true - 1);
}

int64_t CapacityResult::signal_engines() const {
  const std::optional<int64_t> n = engines();
  return n ? std::max<int64_t>(1, *n - 1) : max_engines;
}

std::optional<int64_t> CapacityResult::gpus() const {
  const std::optional<int64_t> n = engines();
  if (!n) return std::nullopt;
  return *n * tensor_parallel;
}

std::optional<double> CapacityResult::gpu_hours() const {
  const std::optional<int64_t> n = gpus();
  if (!n) return std::nullopt;
  return static_cast<double>(*n) * at_answer()->summary.duration_s / 3600.0;
}

std::optional<double> CapacityResult::cost() const {
  const std::optional<double> hours = gpu_hours();
  if (!hours || !gpu_hour_cost) return std::nullopt;
  return *hours * *gpu_hour_cost;
}

std::vector<FigureReversal> figure_reversals(const std::map<int64_t, CapacityPoint>& points) {
  std::vector<FigureReversal> out;
  for (auto it = points.begin(); it != points.end(); ++it) {
    const auto next = std::next(it);
    if (next == points.end()) break;
    const std::vector<SloResult>& a = it->second.slo;
    const std::vector<SloResult>& b = next->second.slo;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (std::isnan(a[i].value) || std::isnan(b[i].value) || a[i].value == b[i].value) continue;
      // Worse by more than kReversalTolerance of the fewer engines' value: not noise.
      const double margin = kReversalTolerance * std::abs(a[i].value);
      const bool worse = lower_is_better(a[i].key) ? b[i].value > a[i].value + margin
                                                   : b[i].value < a[i].value - margin;
      if (worse) out.push_back({a[i].key, it->first, next->first, a[i].value, b[i].value});
    }
  }
  return out;
}

std::string format_capacity(const CapacityResult& r) {
  return format_capacity_header(r) + format_engine_search(r) + format_scale_search(r) +
         format_signals_and_what_ifs(r);
}

nlohmann::ordered_json capacity_json(const CapacityResult& r) {
  nlohmann::ordered_json result;
  const CapacityCandidate& chosen = r.shown();
  const std::optional<int64_t> engines = r.engines();
  result["engines"] = engines ? nlohmann::ordered_json(*engines) : nullptr;
  nlohmann::ordered_json engine_args = nlohmann::ordered_json::object();
  for (const auto& [flag, value] : chosen.settings) engine_args[flag] = value;
  engine_args["routing-policy"] = r.routing_policy;
  engine_args["arrival-rate-scale"] = r.base_scale;
  result["engine_args"] = engine_args;
  nlohmann::ordered_json slo = nlohmann::ordered_json::object();
  for (const SloTarget& t : r.slo) slo[t.key] = t.target;
  result["slo"] = slo;
  result["at_answer"] = capacity_summary_json(r.at_answer());
  result["below_answer"] = capacity_summary_json(r.below_answer());
  result["slo_at_answer"] = capacity_slo_json(r.at_answer());
  result["slo_below_answer"] = capacity_slo_json(r.below_answer());
  result["monotone"] = !chosen.engines.outcome.violation_true;
  nlohmann::ordered_json replayed = nlohmann::ordered_json::array();
  for (const SearchPoint& p : chosen.engines.outcome.evaluated) {
    replayed.push_back({{"engines", p.x}, {"met", p.value}});
  }
  result["replayed"] = replayed;
  nlohmann::ordered_json reversals = nlohmann::ordered_json::array();
  for (const FigureReversal& f : figure_reversals(chosen.engines.points)) {
    reversals.push_back({{"key", f.key},
                         {"from_engines", f.from},
                         {"to_engines", f.to},
                         {"from_value", f.from_value},
                         {"to_value", f.to_value}});
  }
  result["figure_reversals"] = reversals;
  const auto optional_json = [](const auto& v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
  };
  result["tensor_parallel_size"] = r.tensor_parallel;
  result["gpus"] = optional_json(r.gpus());
  result["gpu_hours"] = optional_json(r.gpu_hours());
  result["gpu_hour_cost"] = optional_json(r.gpu_hour_cost);
  if (!r.gpu_hour_cost_source.empty()) result["gpu_hour_cost_source"] = r.gpu_hour_cost_source;
  result["cost"] = optional_json(r.cost());
  const std::optional<double> sustained = r.sustained_scale();
  result["one_engine_max_arrival_rate_scale"] =
      sustained ? nlohmann::ordered_json(*sustained) : nullptr;
  result["one_engine_requests_per_s"] =
      sustained ? nlohmann::ordered_json(*sustained * r.trace_rate_per_s) : nullptr;
  result["one_engine_scale_monotone"] = !r.scale.outcome.violation_true;
  const int64_t signal_engines = r.signal_engines();
  const CapacityPoint& signal_point = chosen.engines.points.at(signal_engines);
  result["signals"] = capacity_signals_json(signal_point.window, signal_engines, signal_point.met);
  nlohmann::ordered_json what_ifs = nlohmann::ordered_json::array();
  for (const CapacityWhatIf& w : r.what_ifs) {
    if (!w.error.empty()) continue;
    what_ifs.push_back({{"flag", w.flag},
                        {"value", w.value},
                        {"engines", signal_engines},
                        {"met", w.point.met},
                        {"slo", capacity_slo_json(&w.point)}});
  }
  result["what_ifs"] = what_ifs;
  return result;
}

}  // namespace llm
