#include "backends/sim/api_server_costs.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "backends/sim/json_fields.h"

namespace llm {
namespace {

struct CostField {
  const char* name;
  double ApiServerCosts::*member;
};
constexpr CostField kCostFields[] = {
    {"request_ns", &ApiServerCosts::request_ns},
    {"per_prompt_token_ns", &ApiServerCosts::per_prompt_token_ns},
    {"hop_ns", &ApiServerCosts::hop_ns},
    {"hop_per_layer_ns", &ApiServerCosts::hop_per_layer_ns},
    {"per_output_token_ns", &ApiServerCosts::per_output_token_ns},
    {"response_ns", &ApiServerCosts::response_ns},
};

}  // namespace

std::string api_server_costs_problem(const ApiServerCosts& c) {
  for (const CostField& f : kCostFields) {
    const double v = c.*f.member;
    if (!std::isfinite(v) || v < 0) {
      return std::string(f.name) + ": must be a finite number >= 0";
    }
    if (v > 60e9) return std::string(f.name) + ": over a minute; is it in nanoseconds?";
  }
  return "";
}

ApiServerCosts read_api_server_costs(const nlohmann::json& object, const std::string& label) {
  sim_json::FieldReader r(object, label);
  ApiServerCosts c;
  for (const CostField& f : kCostFields) {
    r.read(f.name, c.*f.member, f.member != &ApiServerCosts::hop_per_layer_ns);
  }
  r.read("source", c.source, false);
  r.reject_unknown();
  if (const std::string problem = api_server_costs_problem(c); !problem.empty()) {
    const size_t colon = problem.find(':');
    r.fail(problem.substr(0, colon), problem.substr(colon + 2));
  }
  return c;
}

nlohmann::ordered_json api_server_costs_json(const ApiServerCosts& c) {
  nlohmann::ordered_json j;
  for (const CostField& f : kCostFields) {
    if (f.member == &ApiServerCosts::hop_per_layer_ns && c.hop_per_layer_ns == 0) continue;
    j[f.name] = c.*f.member;
  }
  if (!c.source.empty()) j["source"] = c.source;
  return j;
}

ApiServerCosts api_server_costs_for_model(ApiServerCosts costs, int64_t layers) {
  costs.hop_ns += costs.hop_per_layer_ns * static_cast<double>(std::max<int64_t>(layers, 0));
  costs.hop_per_layer_ns = 0;
  return costs;
}

}  // namespace llm
