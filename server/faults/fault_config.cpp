#include "server/faults/fault_config.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "core/flag_values.h"

namespace llm {
namespace {

constexpr int64_t kMaxFaultDurationMs = 24 * 3600 * 1000;

// The whole of `text` as a finite number in `value`; false when it is not one.
bool parse_number(const std::string& text, double& value) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value);
}

}  // namespace

int64_t parse_duration_ms(const std::string& name, const std::string& text) {
  double scale = 0;
  std::string number;
  if (text.size() > 2 && text.compare(text.size() - 2, 2, "ms") == 0) {
    scale = 1;
    number = text.substr(0, text.size() - 2);
  } else if (text.size() > 1 && text.back() == 's') {
    scale = 1000;
    number = text.substr(0, text.size() - 1);
  }
  double value = 0;
  if (scale == 0 || !parse_number(number, value)) {
    throw UsageError(name + ": expected a duration such as 200ms or 1.5s, got '" + text + "'");
  }
  const double ms = value * scale;
  if (ms < 0 || ms > kMaxFaultDurationMs) {
    throw UsageError(name + ": '" + text + "' is out of range (0 to 24 hours)");
  }
  return static_cast<int64_t>(std::llround(ms));
}

double parse_failure_rate(const std::string& name, const std::string& text) {
  const bool percent = !text.empty() && text.back() == '%';
  double value = 0;
  if (!parse_number(percent ? text.substr(0, text.size() - 1) : text, value)) {
    throw UsageError(name + ": expected a fraction such as 0.05 or a percentage such as 5%, got '" +
                     text + "'");
  }
  const double fraction = percent ? value / 100 : value;
  if (fraction < 0 || fraction > 1) {
    throw UsageError(name + ": '" + text + "' is out of range (0 to 1, or 0% to 100%)");
  }
  return fraction;
}

bool health_ready(const FaultConfig& c, int64_t ms) {
  if (ms < c.startup_delay_ms) return false;
  if (c.health_flap_period_ms <= 0) return true;
  // Ready for a period, then not ready for one, from the end of the startup delay.
  return ((ms - c.startup_delay_ms) / c.health_flap_period_ms) % 2 == 0;
}

nlohmann::ordered_json fault_config_json(const FaultConfig& c) {
  nlohmann::ordered_json j;
  j["failure_rate"] = c.failure_rate;
  nlohmann::ordered_json types = nlohmann::ordered_json::array();
  for (FailureType t : c.failure_types.empty() ? all_failure_types() : c.failure_types) {
    types.push_back(failure_type_name(t));
  }
  j["failure_types"] = types;
  j["seed"] = c.seed;
  j["inject_ttft_ms"] = c.ttft_ms;
  j["inject_itl_ms"] = c.itl_ms;
  j["inject_stall_after"] = c.stall_after;
  j["inject_stall_ms"] = c.stall_ms;
  j["inject_cut_after"] = c.cut_after;
  j["startup_delay_ms"] = c.startup_delay_ms;
  j["health_flap_period_ms"] = c.health_flap_period_ms;
  return j;
}

namespace {

int64_t json_int(const std::string& key, const nlohmann::json& v, int64_t min_value,
                 int64_t max_value) {
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))) {
    throw UsageError(key + ": expected an integer, got " + v.dump());
  }
  const int64_t n = v.get<int64_t>();
  if (n < min_value || n > max_value) {
    throw UsageError(key + ": " + std::to_string(n) + " is out of range (" +
                     std::to_string(min_value) + " to " + std::to_string(max_value) + ")");
  }
  return n;
}

}  // namespace

FaultConfig apply_fault_json(const FaultConfig& config, const std::string& body, bool* seed_changed,
                             bool* health_changed) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(std::string("body: not JSON: ") + e.what());
  }
  if (!j.is_object()) throw UsageError("body: expected a JSON object of fault settings");
  FaultConfig c = config;
  *seed_changed = false;
  *health_changed = false;
  for (const auto& [key, v] : j.items()) {
    if (key == "failure_rate") {
      if (v.is_number()) {
        c.failure_rate = parse_failure_rate(key, v.dump());
      } else if (v.is_string()) {
        c.failure_rate = parse_failure_rate(key, v.get<std::string>());
      } else {
        throw UsageError(key + ": expected a number (0 to 1) or a string such as \"5%\", got " +
                         v.dump());
      }
    } else if (key == "failure_types") {
      std::string list;
      if (v.is_string()) {
        list = v.get<std::string>();
      } else if (v.is_array()) {
        for (const auto& item : v) {
          if (!item.is_string()) throw UsageError(key + ": expected strings, got " + item.dump());
          list += (list.empty() ? "" : ",") + item.get<std::string>();
        }
      } else {
        throw UsageError(key + ": expected an array of names or a comma-separated string");
      }
      c.failure_types = list.empty() ? std::vector<FailureType>{} : parse_failure_types(key, list);
    } else if (key == "seed") {
      if (!v.is_number_unsigned()) {
        throw UsageError(key + ": expected a non-negative integer, got " + v.dump());
      }
      c.seed = v.get<uint64_t>();
      *seed_changed = true;
    } else if (key == "inject_ttft_ms") {
      c.ttft_ms = json_int(key, v, 0, kMaxFaultDurationMs);
    } else if (key == "inject_itl_ms") {
      c.itl_ms = json_int(key, v, 0, kMaxFaultDurationMs);
    } else if (key == "inject_stall_after") {
      c.stall_after = json_int(key, v, -1, INT64_MAX);
    } else if (key == "inject_stall_ms") {
      c.stall_ms = json_int(key, v, 0, kMaxFaultDurationMs);
    } else if (key == "inject_cut_after") {
      c.cut_after = json_int(key, v, -1, INT64_MAX);
    } else if (key == "startup_delay_ms") {
      c.startup_delay_ms = json_int(key, v, 0, kMaxFaultDurationMs);
      *health_changed = true;
    } else if (key == "health_flap_period_ms") {
      c.health_flap_period_ms = json_int(key, v, 0, kMaxFaultDurationMs);
      *health_changed = true;
    } else {
      throw UsageError(key + ": unknown field (expected failure_rate, failure_types, seed, " +
                       "inject_ttft_ms, inject_itl_ms, inject_stall_after, inject_stall_ms, " +
                       "inject_cut_after, startup_delay_ms or health_flap_period_ms)");
    }
  }
  return c;
}

}  // namespace llm
