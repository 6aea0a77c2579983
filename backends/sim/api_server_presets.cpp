// The API server's costs on the hosts of the GPU presets (ApiServerCosts), fitted from recorded
// vLLM runs in ../shared/gpu-truth by ci/fit-api-server.py; docs/api-server.md gives the fit,
// its data and its residuals. The API server is host CPU work: a card's figures are those of the
// host it was measured on, and cards without runs borrow the H100 host's (stated per row).
// Thread-safety: an immutable table.
#include <string>
#include <string_view>
#include <vector>

#include "backends/sim/api_server_costs.h"

namespace llm {
namespace {

struct HostRow {
  const char* gpu;
  ApiServerCosts costs;
};

const std::vector<HostRow>& host_table() {
  // clang-format off
  static const std::vector<HostRow> table = {
      // gpu            request  per prompt tok  hop      per output tok  response
      {"H100-SXM",     {1.4e6,   0,              3.0e6,   40e3,           0.9e6,
                        "fitted: BLIS H100 runs (vLLM 0.15.1), client TTFT at the lowest load"}},
  };
  // clang-format on
  return table;
}

}  // namespace

std::optional<ApiServerCosts> api_server_preset(std::string_view gpu_name) {
  for (const HostRow& row : host_table()) {
    if (gpu_name == row.gpu) return row.costs;
  }
  return std::nullopt;
}

}  // namespace llm
