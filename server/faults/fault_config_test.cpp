// The test double's configuration: flag and header values (durations, the failure rate) and the
// admin API's JSON, with the errors that name what was wrong; and the /health schedule.
#include "server/faults/fault_config.h"

#include <gtest/gtest.h>

#include "core/flag_values.h"

namespace llm {
namespace {

TEST(FaultConfig, DurationsNeedAUnit) {
  const struct {
    const char* text;
    int64_t ms;
  } good[] = {{"200ms", 200}, {"0ms", 0}, {"1.5s", 1500}, {"2s", 2000}, {"0.0005s", 1}};
  for (const auto& c : good) EXPECT_EQ(parse_duration_ms("--inject-ttft", c.text), c.ms) << c.text;
  for (const char* bad : {"200", "", "ms", "s", "-1ms", "abc", "1h", " 5s", "1e9s", "nans"}) {
    try {
      parse_duration_ms("--inject-ttft", bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("--inject-ttft: ", 0), 0u) << e.what();
    }
  }
}

TEST(FaultConfig, FailureRateIsAFractionOrAPercentage) {
  const struct {
    const char* text;
    double rate;
  } good[] = {{"0", 0}, {"0.05", 0.05}, {"1", 1}, {"5%", 0.05}, {"100%", 1}, {"0%", 0}};
  for (const auto& c : good) {
    EXPECT_DOUBLE_EQ(parse_failure_rate("--failure-rate", c.text), c.rate) << c.text;
  }
  for (const char* bad : {"5", "1.01", "-0.1", "101%", "%", "", "x", "inf", "nan"}) {
    EXPECT_THROW(parse_failure_rate("--failure-rate", bad), UsageError) << bad;
  }
  try {
    parse_failure_rate("--failure-rate", "5");
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--failure-rate: '5' is out of range (0 to 1, or 0% to 100%)");
  }
}

TEST(FaultConfig, HealthScheduleStartsNotReadyThenFlaps) {
  FaultConfig c;
  EXPECT_TRUE(health_ready(c, 0));
  c.startup_delay_ms = 100;
  const struct {
    int64_t ms;
    bool ready;
  } startup[] = {{0, false}, {99, false}, {100, true}, {100000, true}};
  for (const auto& row : startup) EXPECT_EQ(health_ready(c, row.ms), row.ready) << row.ms;
  c.health_flap_period_ms = 50;
  const struct {
    int64_t ms;
    bool ready;
  } flap[] = {{99, false}, {100, true}, {149, true}, {150, false}, {199, false}, {200, true}};
  for (const auto& row : flap) EXPECT_EQ(health_ready(c, row.ms), row.ready) << row.ms;
}

TEST(FaultConfig, AdminJsonReplacesTheFieldsItGives) {
  FaultConfig c;
  c.itl_ms = 7;
  bool seed = false, health = false;
  const FaultConfig next = apply_fault_json(
      c, R"({"failure_rate":"50%","failure_types":["rate_limit"],"inject_ttft_ms":30})", &seed,
      &health);
  EXPECT_DOUBLE_EQ(next.failure_rate, 0.5);
  EXPECT_EQ(next.failure_types, std::vector<FailureType>{FailureType::kRateLimit});
  EXPECT_EQ(next.ttft_ms, 30);
  EXPECT_EQ(next.itl_ms, 7);  // kept
  EXPECT_FALSE(seed);
  EXPECT_FALSE(health);
  apply_fault_json(c, R"({"seed":3,"startup_delay_ms":10})", &seed, &health);
  EXPECT_TRUE(seed);
  EXPECT_TRUE(health);
  // The JSON of a configuration reads back as the same configuration.
  const FaultConfig again =
      apply_fault_json(FaultConfig{}, fault_config_json(next).dump(), &seed, &health);
  EXPECT_EQ(fault_config_json(again), fault_config_json(next));
}

TEST(FaultConfig, AdminJsonErrorsNameTheField) {
  const struct {
    const char* body;
    const char* starts;
  } table[] = {
      {R"({"failure_rate":2})", "failure_rate: "},
      {R"({"failure_rate":true})", "failure_rate: "},
      {R"({"failure_types":["nope"]})", "failure_types: unknown failure type 'nope'"},
      {R"({"failure_types":3})", "failure_types: "},
      {R"({"seed":-1})", "seed: "},
      {R"({"inject_ttft_ms":-5})", "inject_ttft_ms: -5 is out of range"},
      {R"({"inject_itl_ms":"20ms"})", "inject_itl_ms: expected an integer"},
      {R"({"inject_cut_after":-2})", "inject_cut_after: "},
      {R"({"ttft":1})", "ttft: unknown field"},
      {R"([1])", "body: expected a JSON object"},
      {R"({)", "body: not JSON"},
  };
  for (const auto& row : table) {
    bool seed = false, health = false;
    try {
      apply_fault_json(FaultConfig{}, row.body, &seed, &health);
      ADD_FAILURE() << row.body << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(row.starts, 0), 0u) << row.body << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace llm
