// The API server's costs: their JSON form (a profile's api_server block) and the presets' table.
#include "backends/sim/api_server_costs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llm {
namespace {

nlohmann::json good() {
  return {{"request_ns", 1.5e6},         {"per_prompt_token_ns", 400}, {"hop_ns", 2e6},
          {"per_output_token_ns", 30e3}, {"response_ns", 0.5e6},       {"source", "test"}};
}

TEST(ApiServerCosts, ReadsAndWritesTheSameFigures) {
  const ApiServerCosts c = read_api_server_costs(good(), "p.json: api_server");
  EXPECT_EQ(c.request_ns, 1.5e6);
  EXPECT_EQ(c.per_prompt_token_ns, 400);
  EXPECT_EQ(c.hop_ns, 2e6);
  EXPECT_EQ(c.per_output_token_ns, 30e3);
  EXPECT_EQ(c.response_ns, 0.5e6);
  EXPECT_EQ(c.source, "test");
  const nlohmann::json back = nlohmann::json::parse(api_server_costs_json(c).dump());
  EXPECT_EQ(read_api_server_costs(back, "again"), c);
}

// hop_per_layer_ns is optional (0 when absent, and then not written) and round-trips when set.
TEST(ApiServerCosts, HopPerLayerIsOptionalAndRoundTrips) {
  EXPECT_EQ(read_api_server_costs(good(), "p.json").hop_per_layer_ns, 0);
  EXPECT_FALSE(
      api_server_costs_json(read_api_server_costs(good(), "p.json")).contains("hop_per_layer_ns"));
  nlohmann::json j = good();
  j["hop_per_layer_ns"] = 75e3;
  const ApiServerCosts c = read_api_server_costs(j, "p.json");
  EXPECT_EQ(c.hop_per_layer_ns, 75e3);
  const nlohmann::json back = nlohmann::json::parse(api_server_costs_json(c).dump());
  EXPECT_EQ(back.at("hop_per_layer_ns"), 75e3);
  EXPECT_EQ(read_api_server_costs(back, "again"), c);
}

// In front of a model, the hop is hop_ns + hop_per_layer_ns * layers, the rest unchanged.
TEST(ApiServerCosts, ForAModelTheHopGrowsWithItsLayers) {
  struct Row {
    double hop_ns, per_layer_ns;
    int64_t layers;
    double expected_hop_ns;
  };
  const std::vector<Row> rows = {
      {2e6, 0, 80, 2e6},           // no per-layer term: as before
      {2e6, 100e3, 0, 2e6},        // a profile's engine (no layers known)
      {2e6, 100e3, 32, 5.2e6},     // Llama-2-7B
      {2e6, 100e3, 80, 10e6},      // Llama-3.1-70B
      {4.5e6, 62.5e3, 48, 7.5e6},  // Llama-4-Scout's text layers
      {2e6, 100e3, -1, 2e6},       // nonsense layers add nothing
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.layers);
    ApiServerCosts c = read_api_server_costs(good(), "p.json");
    c.hop_ns = row.hop_ns;
    c.hop_per_layer_ns = row.per_layer_ns;
    const ApiServerCosts m = api_server_costs_for_model(c, row.layers);
    EXPECT_DOUBLE_EQ(m.hop_ns, row.expected_hop_ns);
    EXPECT_EQ(m.hop_per_layer_ns, 0);
    EXPECT_EQ(m.request_ns, c.request_ns);
    EXPECT_EQ(m.per_prompt_token_ns, c.per_prompt_token_ns);
    EXPECT_EQ(m.per_output_token_ns, c.per_output_token_ns);
    EXPECT_EQ(m.response_ns, c.response_ns);
  }
}

// Each bad object is refused naming the field.
TEST(ApiServerCosts, RefusesBadFieldsNamingThem) {
  struct Row {
    const char* key;
    nlohmann::json value;  // null: remove the key
    const char* message;
  };
  const std::vector<Row> rows = {
      {"hop_ns", nullptr, "missing required field 'hop_ns'"},
      {"hop_ns", -1, "field 'hop_ns': must be a finite number >= 0"},
      {"hop_per_layer_ns", -1, "field 'hop_per_layer_ns': must be a finite number >= 0"},
      {"hop_per_layer_ns", "1us", "field 'hop_per_layer_ns': expected a number"},
      {"request_ns", "1ms", "field 'request_ns': expected a number"},
      {"per_output_token_ns", 1e12, "field 'per_output_token_ns': over a minute"},
      {"tokens_ns", 1, "unknown field 'tokens_ns'"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.key);
    nlohmann::json j = good();
    if (row.value.is_null()) {
      j.erase(row.key);
    } else {
      j[row.key] = row.value;
    }
    try {
      read_api_server_costs(j, "p.json: api_server");
      FAIL() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(row.message), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("p.json: api_server"), std::string::npos) << e.what();
    }
  }
}

TEST(ApiServerCosts, PresetsHaveValidFiguresAndUnknownCardsNone) {
  for (const char* gpu : {"H100-SXM", "H200", "A100-80GB", "L40S", "RTX-PRO-6000"}) {
    SCOPED_TRACE(gpu);
    const auto c = api_server_preset(gpu);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(api_server_costs_problem(*c), "");
    EXPECT_GT(c->request_ns + c->hop_ns + c->response_ns, 0);
    EXPECT_FALSE(c->source.empty());
  }
  EXPECT_FALSE(api_server_preset("my-gpu").has_value());
}

}  // namespace
}  // namespace llm
