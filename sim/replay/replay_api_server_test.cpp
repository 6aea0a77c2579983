// The API server in front of a replay prices its hop for the model the deployment serves:
// hop_ns + hop_per_layer_ns * layers (api_server_costs_for_model), so a deeper model's first token
// reaches the client later by exactly that much at no load.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "backends/sim/presets.h"
#include "sim/replay/replay.h"
#include "sim/replay/replay_options.h"

namespace llm {
namespace {

// The engine as `llmsim replay --gpu H100-SXM --model MODEL` configures it.
ReplayConfig one_engine(const char* model) {
  ReplayOptions o;
  o.engine.gpu = "H100-SXM";
  o.engine.model = model;
  return make_replay_config(o);
}

// Each request's client first-token time, by id, for a replay with these API-server costs.
std::map<std::string, Nanos> first_tokens(const char* model, double hop_ns, double per_layer_ns) {
  Trace trace;
  for (int i = 0; i < 3; ++i) {
    // One second apart: each request finds the engine and the server idle.
    TraceRequest r;
    r.id = "r" + std::to_string(i);
    r.arrival_ns = i * 1'000'000'000LL;
    r.prompt_len = 100;
    r.output_len = 4;
    trace.requests.push_back(r);
  }
  ReplayConfig c = one_engine(model);
  c.api_server = ApiServerCosts{1e6, 80, hop_ns, 40e3, 0.5e6, "test"};
  c.api_server->hop_per_layer_ns = per_layer_ns;
  std::map<std::string, Nanos> out;
  ReplayHooks hooks;
  hooks.on_client_times = [&](size_t, const Request& r, const ClientTimes& t) {
    out[r.external_id] = t.first_token - t.server_arrival;
  };
  EngineObserver observer;
  run_replay(trace, c, {&observer}, hooks);
  return out;
}

TEST(ReplayApiServer, TheHopPerLayerIsPaidForTheModelsLayers) {
  struct Row {
    const char* model;
    int64_t layers;
  };
  for (const Row& row : {Row{"Llama-3.2-1B", 16}, Row{"Llama-3.1-8B", 32}}) {
    SCOPED_TRACE(row.model);
    ASSERT_EQ(find_model_preset(row.model)->layers, row.layers);
    // The H100 host's preset carries a per-layer hop into the replay's configuration.
    ASSERT_TRUE(one_engine(row.model).api_server.has_value());
    EXPECT_GT(one_engine(row.model).api_server->hop_per_layer_ns, 0);
    const auto flat = first_tokens(row.model, 3e6, 0);
    const auto per_layer = first_tokens(row.model, 3e6, 100e3);
    const auto folded = first_tokens(row.model, 3e6 + 100e3 * static_cast<double>(row.layers), 0);
    ASSERT_EQ(flat.size(), 3u);
    EXPECT_EQ(per_layer, folded);
    for (const auto& [id, ttft] : flat) {
      EXPECT_EQ(per_layer.at(id) - ttft, row.layers * 100'000) << id;
    }
  }
}

}  // namespace
}  // namespace llm
