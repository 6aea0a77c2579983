#include "sim/faults/fault_window.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "sim/time_text.h"

namespace llm {
namespace {

constexpr const char* kForms =
    "engine-down:ENGINE:FROM:TO, http-5xx:PERCENT:FROM:TO or slow:ENGINE:FACTOR:FROM:TO";

std::vector<std::string_view> split_colons(std::string_view spec) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) return parts;
    start = colon + 1;
  }
}

std::string quoted(std::string_view part) { return "'" + std::string(part) + "'"; }

int32_t engine_part(std::string_view part) {
  int32_t engine = -1;
  const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), engine);
  if (part.empty() || ec != std::errc() || end != part.data() + part.size() || engine < 0) {
    throw FaultSpecError("ENGINE " + quoted(part) + " is not an engine index (0, 1, ...)");
  }
  return engine;
}

std::optional<double> number_of(std::string_view part) {
  double v = 0;
  const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
  if (part.empty() || ec != std::errc() || end != part.data() + part.size() || !std::isfinite(v)) {
    return std::nullopt;
  }
  return v;
}

double percent_part(std::string_view part) {
  std::string_view digits = part;
  if (!digits.empty() && digits.back() == '%') digits.remove_suffix(1);
  const auto v = number_of(digits);
  if (!v || *v <= 0 || *v > 100) {
    throw FaultSpecError("PERCENT " + quoted(part) +
                         " is not a share of requests above 0 and at most 100 (20 or 20%)");
  }
  return *v;
}

double factor_part(std::string_view part) {
  std::string_view digits = part;
  if (!digits.empty() && digits.back() == 'x') digits.remove_suffix(1);
  const auto v = number_of(digits);
  if (!v || *v <= 0) {
    throw FaultSpecError("FACTOR " + quoted(part) +
                         " is not a positive number (3 or 3x: steps take 3 times as long)");
  }
  return *v;
}

// A duration of zero ("0s", "0m0s"): what parse_duration_ns refuses, as it wants a positive one.
bool zero_duration(std::string_view part) {
  std::string ones(part);
  bool any = false;
  for (char& c : ones) {
    if (c >= '1' && c <= '9') return false;
    if (c == '0') {
      c = '1';
      any = true;
    }
  }
  return any && parse_duration_ns(ones).has_value();
}

int64_t time_part(const char* name, std::string_view part) {
  if (part == "0" || zero_duration(part)) return 0;
  const auto ns = parse_duration_ns(std::string(part));
  if (!ns) {
    throw FaultSpecError(std::string(name) + " " + quoted(part) +
                         " is not a time such as 0, 90s, 10m or 1h (on the replay's clock)");
  }
  return *ns;
}

std::string time_text(int64_t ns) { return trace_time_text(ns, 0); }

// The shortest text that reads back as the same double ("20", "2.5").
std::string number_text(double v) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

}  // namespace

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::kEngineDown:
      return "engine-down";
    case FaultKind::kHttp5xx:
      return "http-5xx";
    case FaultKind::kSlow:
      return "slow";
  }
  return "?";
}

FaultWindow parse_fault(std::string_view spec) {
  const std::vector<std::string_view> parts = split_colons(spec);
  FaultWindow f;
  size_t expected = 0;
  const char* form = "";
  if (parts[0] == "engine-down") {
    f.kind = FaultKind::kEngineDown;
    expected = 4;
    form = "engine-down:ENGINE:FROM:TO";
  } else if (parts[0] == "http-5xx") {
    f.kind = FaultKind::kHttp5xx;
    expected = 4;
    form = "http-5xx:PERCENT:FROM:TO";
  } else if (parts[0] == "slow") {
    f.kind = FaultKind::kSlow;
    expected = 5;
    form = "slow:ENGINE:FACTOR:FROM:TO";
  } else {
    throw FaultSpecError("unknown fault " + quoted(parts[0]) + ": expected " + kForms);
  }
  if (parts.size() != expected) {
    throw FaultSpecError("expected " + std::string(form) + " (" + std::to_string(expected) +
                         " parts separated by ':'), got " + std::to_string(parts.size()) +
                         " parts");
  }
  switch (f.kind) {
    case FaultKind::kEngineDown:
      f.engine = engine_part(parts[1]);
      break;
    case FaultKind::kHttp5xx:
      f.percent = percent_part(parts[1]);
      break;
    case FaultKind::kSlow:
      f.engine = engine_part(parts[1]);
      f.factor = factor_part(parts[2]);
      break;
  }
  f.from_ns = time_part("FROM", parts[expected - 2]);
  f.to_ns = time_part("TO", parts[expected - 1]);
  if (f.to_ns <= f.from_ns) {
    throw FaultSpecError("TO " + quoted(parts[expected - 1]) + " is not after FROM " +
                         quoted(parts[expected - 2]));
  }
  return f;
}

std::string fault_spec_text(const FaultWindow& f) {
  std::string s = fault_kind_name(f.kind);
  switch (f.kind) {
    case FaultKind::kEngineDown:
      s += ":" + std::to_string(f.engine);
      break;
    case FaultKind::kHttp5xx:
      s += ":" + number_text(f.percent);
      break;
    case FaultKind::kSlow:
      s += ":" + std::to_string(f.engine) + ":" + number_text(f.factor);
      break;
  }
  return s + ":" + time_text(f.from_ns) + ":" + time_text(f.to_ns);
}

std::string fault_description(const FaultWindow& f) {
  const std::string window = " from " + time_text(f.from_ns) + " to " + time_text(f.to_ns);
  switch (f.kind) {
    case FaultKind::kEngineDown:
      return "engine " + std::to_string(f.engine) + " down" + window;
    case FaultKind::kHttp5xx:
      return number_text(f.percent) + "% of requests answered 5xx" + window;
    case FaultKind::kSlow:
      return "engine " + std::to_string(f.engine) + " steps " + number_text(f.factor) + "x slower" +
             window;
  }
  return "?";
}

std::string faults_text(const std::vector<FaultWindow>& faults) {
  std::string text;
  for (const FaultWindow& f : faults) {
    if (!text.empty()) text += "; ";
    text += fault_spec_text(f) + " (" + fault_description(f) + ")";
  }
  return text;
}

double fault_active_s(const FaultWindow& f, double run_s) {
  const double from = static_cast<double>(f.from_ns) * 1e-9;
  const double to = std::min(static_cast<double>(f.to_ns) * 1e-9, run_s);
  return std::max(0.0, to - std::max(0.0, from));
}

void check_fault_engines(const std::vector<FaultWindow>& faults, int32_t num_engines) {
  for (const FaultWindow& f : faults) {
    if (f.engine < num_engines) continue;
    throw FaultSpecError(fault_spec_text(f) + ": ENGINE " + std::to_string(f.engine) +
                         " is not an engine of this replay (--data-parallel-size " +
                         std::to_string(num_engines) + ": engines 0 to " +
                         std::to_string(num_engines - 1) + ")");
  }
}

}  // namespace llm
