// What the API server costs a request, as llmsim models it (sim/api_server/): vLLM's OpenAI server
// (and llmserve's HTTP front end) is one process that reads each request, tokenizes its prompt and
// hands it to the engine, and then detokenizes and streams every output token. The figures are
// per card/host (a GPU preset's, fitted from recorded runs) or per engine (a profile's api_server
// block, measured by `llmsim calibrate`). The process time (request_ns, per_prompt_token_ns,
// per_output_token_ns) is spent one request at a time, so bursts queue; hop_ns and response_ns
// are latencies that hold nothing.
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace llm {

struct ApiServerCosts {
  double request_ns = 0;           // process time per request before tokenization (HTTP, checks)
  double per_prompt_token_ns = 0;  // process time per prompt token (tokenization)
  double hop_ns = 0;               // tokenized request to the engine's input queue (latency)
  double per_output_token_ns = 0;  // process time per output token (detokenize, SSE chunk)
  double response_ns = 0;          // a streamed chunk from the process to the client (latency)
  std::string source;              // where the figures come from
  // Latency per layer of the model the engine serves, added to the hop
  // (api_server_costs_for_model): the runs' low-load gaps grow with the layers (docs/api-server.md,
  // "The hop per layer"). 0 for an engine measured as it is (a profile), and omitted from the JSON
  // when 0.
  double hop_per_layer_ns = 0;

  bool operator==(const ApiServerCosts&) const = default;
};

// "" when every figure is finite and >= 0, else "FIELD: what is wrong".
std::string api_server_costs_problem(const ApiServerCosts& costs);

// The costs from a JSON object with the fields above (source optional). Throws
// std::invalid_argument "LABEL: field 'KEY': what" for a missing, unknown or invalid field.
ApiServerCosts read_api_server_costs(const nlohmann::json& object, const std::string& label);
nlohmann::ordered_json api_server_costs_json(const ApiServerCosts& costs);

// The costs in front of a model of `layers` layers: hop_per_layer_ns * layers added to hop_ns
// (and hop_per_layer_ns then 0), so that the API server process sees one hop.
ApiServerCosts api_server_costs_for_model(ApiServerCosts costs, int64_t layers);

// The fitted costs of a GPU preset's host (api_server_presets.cpp says where each comes from), or
// nullopt for a GPU given as a JSON file or a name without figures.
std::optional<ApiServerCosts> api_server_preset(std::string_view gpu_name);

}  // namespace llm
