// Tests of the small YAML reader on the shapes the published profiles use, and its errors.
// Thread-safety: single-threaded tests.
#include "calibrate/gpu_fit/simple_yaml.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace llm {
namespace {

TEST(SimpleYaml, ProfileShapes) {
  const nlohmann::json y = parse_simple_yaml(R"(gpu: h100_sxm   # a comment
tp: 2
version: 0.14.0
gemm:
  tokens:
  - 1.0
  - 2.0
  latency_us:
  - 151.5
  - 156
table:
  latency_us:
  - - 13.04
    - 13.3
  - - 14.9
    - 15.9
flags: {"a": 1}
list: [0.5, 1]
plain: [n<=2, n>2]
name: 'quoted: text'
empty:
)",
                                             "t.yaml");
  EXPECT_EQ(y["gpu"], "h100_sxm");
  EXPECT_EQ(y["tp"], 2);
  EXPECT_EQ(y["version"], "0.14.0");
  EXPECT_EQ(y["gemm"]["tokens"][1], 2.0);
  EXPECT_EQ(y["gemm"]["latency_us"][1], 156);
  EXPECT_EQ(y["table"]["latency_us"][1][0], 14.9);
  EXPECT_EQ(y["table"]["latency_us"][0].size(), 2u);
  EXPECT_EQ(y["flags"]["a"], 1);
  EXPECT_EQ(y["list"][0], 0.5);
  EXPECT_EQ(y["plain"], "[n<=2, n>2]");
  EXPECT_EQ(y["name"], "quoted: text");
  EXPECT_TRUE(y["empty"].is_null());
  EXPECT_EQ(parse_simple_yaml(R"({"api": {"streaming": true}})", "p.yaml")["api"]["streaming"],
            true);
}

TEST(SimpleYaml, ErrorsNameFileAndLine) {
  const auto error = [](const std::string& text) {
    try {
      parse_simple_yaml(text, "bad.yaml");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error("a: 1\nb\n").rfind("bad.yaml:2:", 0), 0u) << error("a: 1\nb\n");
  EXPECT_EQ(error("a: 1\na: 2\n").rfind("bad.yaml:2:", 0), 0u);
  EXPECT_EQ(error("a:\n  b: 1\n    c: 2\n").rfind("bad.yaml:3:", 0), 0u);
  EXPECT_EQ(error("a: &anchor 1\n").rfind("bad.yaml:1:", 0), 0u);
  EXPECT_EQ(error("\ta: 1\n").rfind("bad.yaml:1:", 0), 0u);
  EXPECT_NE(error("a: 1\n- b\n"), "");
}

}  // namespace
}  // namespace llm
