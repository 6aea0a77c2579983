#include "core/python_float.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace llm {
namespace {

// Expected strings are what Python 3's prometheus_client.utils.floatToGoString returns.
TEST(PythonFloat, MatchesPrometheusClientFormatting) {
  const struct {
    double value;
    const char* text;
  } cases[] = {
      {0.0, "0.0"},
      {1.0, "1.0"},
      {0.001, "0.001"},
      {0.25, "0.25"},
      {2560.0, "2560.0"},
      {7680.0, "7680.0"},
      {16384.0, "16384.0"},
      {100000.0, "100000.0"},
      {999999.0, "999999.0"},
      {1e6, "1e+06"},
      {2e6, "2e+06"},
      {1.5e7, "1.5e+07"},
      {123456789.0, "1.23456789e+08"},
      {0.0001, "0.0001"},
      {0.00001, "1e-05"},
      {1.5e-7, "1.5e-07"},
      {0.1, "0.1"},
      {1.0 / 3, "0.3333333333333333"},
      {-2.5, "-2.5"},
      {42.0, "42.0"},
      {1e16, "1e+16"},
      {std::numeric_limits<double>::infinity(), "+Inf"},
      {-std::numeric_limits<double>::infinity(), "-Inf"},
      {std::nan(""), "NaN"},
  };
  for (const auto& c : cases) EXPECT_EQ(python_float(c.value), c.text) << c.value;
}

}  // namespace
}  // namespace llm
