// The API server's costs on the hosts of the GPU presets (ApiServerCosts), fitted from the
// recorded vLLM runs in ../shared/gpu-truth by tools/fit-api-server.py; docs/api-server.md gives
// the fit, its data and its residuals. The API server is host CPU work: a card's figures are its
// host's, and only two hosts were measured, so every other card borrows the H100 host's (said
// per row).
// Thread-safety: an immutable table.
#include <string>
#include <string_view>
#include <vector>

#include "backends/sim/api_server_costs.h"

namespace llm {
namespace {

// Of the RTX PRO 6000 run (vLLM 0.19, 299 requests): the client's send to vLLM's arrival_time,
// its least-squares line against the prompt length: 79 ns per prompt token, and 1.79 ms for the
// quickest request (the line's 2.84 ms less the largest residual below it, 1.05 ms).
constexpr double kRequestNs = 1.79e6;
constexpr double kPerPromptTokenNs = 79;
// Not separable from the rest in these runs; stated, not fitted (docs/api-server.md).
constexpr double kPerOutputTokenNs = 40e3;
constexpr double kResponseNs = 0.5e6;
// Of the H100 runs (vLLM 0.15.1): the first stage's measured client TTFT mean less llmsim's
// engine-only prediction of it (the calibrated H100-SXM preset), over 17 runs, against the
// model's layers (Theil-Sen): 5.44 ms + 68.2 us per layer (|residual| median 2.4 ms; the median
// alone, 10.41 ms, left 3.4 ms), less the parts above for a 550-token prompt.
constexpr double kH100HopNs = 3.063e6;
constexpr double kH100HopPerLayerNs = 68.16e3;

ApiServerCosts host_costs(double hop_ns, const char* source) {
  ApiServerCosts c{kRequestNs, kPerPromptTokenNs, hop_ns, kPerOutputTokenNs, kResponseNs, source};
  c.hop_per_layer_ns = kH100HopPerLayerNs;
  return c;
}

struct HostRow {
  const char* gpu;
  ApiServerCosts costs;
};

const std::vector<HostRow>& host_table() {
  static const std::vector<HostRow> table = {
      {"H100-SXM",
       host_costs(kH100HopNs,
                  "fitted: the H100 runs' client TTFT at their lowest load (vLLM 0.15.1), "
                  "the RTX PRO 6000 run's reads (vLLM 0.19); tools/fit-api-server.py")},
      {"RTX-PRO-6000",
       host_costs(kH100HopNs, "its run's reads (vLLM 0.19); the hop borrowed from the H100 host")},
      {"H200", host_costs(kH100HopNs, "borrowed from the H100 host (no runs on this card)")},
      {"H100-PCIe", host_costs(kH100HopNs, "borrowed from the H100 host (no runs on this card)")},
      {"A100-80GB", host_costs(kH100HopNs, "borrowed from the H100 host (no runs on this card)")},
      {"A100-40GB", host_costs(kH100HopNs, "borrowed from the H100 host (no runs on this card)")},
      {"L40S", host_costs(kH100HopNs, "borrowed from the H100 host (no runs on this card)")},
      {"B200", host_costs(kH100HopNs, "borrowed from the H100 host (no runs on this card)")},
      {"RTX-4090", host_costs(kH100HopNs, "borrowed from the H100 host (no runs on this card)")},
  };
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
